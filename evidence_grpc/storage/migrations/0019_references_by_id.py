"""References by id (DESIGN.md decision 12): actions watch environments and flows by id, a
logical environment keeps its members by id, and an approval points at its environment by id.
Before, they stored names: a rename silently stopped an action, and a new environment given
the old name inherited it.

Existing names are turned into the ids of what has them now; a flow name that is no flow's
falls back to the flow that had it (flow_alias), as the API itself answers a former name. A
name that resolves to nothing stays as a label: a string in the lists (ids are integers), the
approval's `environment` column with a null `environment_id`; shown as it is, never matched.
Frozen: SQL and stand-in models only, no domain or storage imports."""

import json

import peewee


def _referenced(names, ids, aliases=None):
    """The list of names as ids, each once; a name of nothing kept as it is."""
    aliases = aliases or {}
    return list(dict.fromkeys(ids.get(n, aliases.get(n, n)) for n in names))


def _json(value):
    return json.dumps(value, separators=(",", ":"))  # as the JSON columns store it


def up(migrator, db):
    class Base(peewee.Model):
        class Meta:
            database = db
            legacy_table_names = False

    # Stand-in for the table of 0003, only referenced here.
    class Environment(Base):
        pass

    migrator.migrate(
        migrator.add_column("approval", "environment_id", peewee.ForeignKeyField(
            Environment, null=True, on_delete="SET NULL", field=Environment.id)),
    )
    db.execute_sql(
        "UPDATE approval SET environment_id = (SELECT e.id FROM environment e "
        "WHERE e.organization_id = approval.organization_id AND e.name = approval.environment) "
        "WHERE environment IS NOT NULL")

    def by_org(sql):
        found = {}
        for org_id, name, row_id in db.execute_sql(sql):
            found.setdefault(org_id, {})[name] = row_id
        return found

    p = db.param  # the engine's placeholder
    envs = by_org("SELECT organization_id, name, id FROM environment")
    flows = by_org("SELECT organization_id, name, id FROM flow")
    aliases = by_org("SELECT organization_id, name, flow_id FROM flow_alias")

    for env_id, org_id, text in list(db.execute_sql(
            "SELECT id, organization_id, included_environments FROM environment "
            "WHERE type = 'logical' ORDER BY id")):
        members = json.loads(text) if text else []
        db.execute_sql(f"UPDATE environment SET included_environments = {p} WHERE id = {p}",
                       (_json(_referenced(members, envs.get(org_id, {}))), env_id))

    for action_id, org_id, kind, text in list(db.execute_sql(
            'SELECT id, organization_id, type, scopes FROM "action" ORDER BY id')):
        names = json.loads(text) if text else []
        scopes = (_referenced(names, envs.get(org_id, {})) if kind == "env" else
                  _referenced(names, flows.get(org_id, {}), aliases.get(org_id, {})))
        db.execute_sql(f'UPDATE "action" SET scopes = {p} WHERE id = {p}',
                       (_json(scopes), action_id))
