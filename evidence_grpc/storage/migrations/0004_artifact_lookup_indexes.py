"""Indexes for fingerprint and commit lookups within a flow: without them SQLite walks the
flow's (flow, created_at) index, which takes hundreds of milliseconds with a million artifacts."""


def up(migrator, db):
    db.execute_sql("CREATE INDEX IF NOT EXISTS artifact_flow_id_fingerprint "
                   "ON artifact (flow_id, fingerprint)")
    db.execute_sql("CREATE INDEX IF NOT EXISTS artifact_flow_id_git_commit "
                   "ON artifact (flow_id, git_commit)")
