"""A trail keeps the template it was begun with, and artifacts get the hosted service's random ids
(issue 44).

Flow templates are appended, never changed (`flow_template`): each flow gets one holding the
template it has now (its `template`), and each trail is pinned (`flow_template_id`) to what
judged it before this migration: its own template when it was given one (a version of its own),
otherwise its flow's template as of now, so that every trail answers as it did. From here on a
flow's new template judges the trails begun after it only. Likewise, what a template requires of
a trail counts for each of its artifacts in trails begun from here on; the trails already begun
keep the rule that judged their artifacts by what it requires of them alone
(`artifacts_judged_alone`).

Every artifact gets `uid`, its id in answers: existing ones keep the id they were answered
with (their row id, 28 hex digits grouped 8-4-4-4-8), new ones are random. Frozen: stand-in
models and SQL only, no domain or storage imports."""

import uuid

import peewee

from evidence_grpc.storage.migrations.frozen import JSONField

BATCH = 1_000  # rows an UPDATE round


def _random_id():
    """A UUID (version 4) cut to the hosted service's 8-4-4-4-8 hex digits."""
    return str(uuid.uuid4())[:-4]


def _row_shaped(row_id):
    """The id artifacts were answered with before: the row id as 28 hex digits, 8-4-4-4-8."""
    digits = f"{row_id:028x}"
    return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"


def up(migrator, db):
    class Base(peewee.Model):
        class Meta:
            database = db
            legacy_table_names = False

    # Stand-in for the table of 0001, only referenced here.
    class Flow(Base):
        pass

    class FlowTemplate(Base):
        id = peewee.CharField(primary_key=True)
        flow = peewee.ForeignKeyField(Flow, on_delete="CASCADE")
        template_yaml = peewee.TextField(null=True)
        legacy_template = JSONField(null=True)
        for_trail = peewee.BooleanField(default=False)
        created_at = peewee.DoubleField()

    db.create_tables([FlowTemplate])
    migrator.migrate(
        migrator.add_column("flow", "template", peewee.CharField(null=True)),
        migrator.add_column("trail", "flow_template_id", peewee.ForeignKeyField(
            FlowTemplate, null=True, on_delete="CASCADE", field=FlowTemplate.id)),
        migrator.add_column("artifact", "uid", peewee.CharField(null=True)),
    )
    # A plain ADD COLUMN with a default (peewee's not-null step would rebuild SQLite's table, and
    # dropping `trail` cascades to its evidence); the trails begun so far keep their rule.
    db.execute_sql("ALTER TABLE trail ADD COLUMN artifacts_judged_alone BOOLEAN NOT NULL "
                   "DEFAULT FALSE")
    db.execute_sql("UPDATE trail SET artifacts_judged_alone = TRUE")
    p = db.param  # the engine's placeholder
    cursor = db.cursor()

    flows = list(db.execute_sql(
        "SELECT id, template_yaml, legacy_template, last_modified_at FROM flow ORDER BY id"))
    versions = [(_random_id(), flow_id, text, legacy, stamp)
                for flow_id, text, legacy, stamp in flows]
    cursor.executemany(
        "INSERT INTO flow_template (id, flow_id, template_yaml, legacy_template, for_trail, "
        f"created_at) VALUES ({p}, {p}, {p}, {p}, FALSE, {p})", versions)
    cursor.executemany(f"UPDATE flow SET template = {p} WHERE id = {p}",
                       [(version[0], version[1]) for version in versions])

    # A trail given its own template was judged by it; any other by its flow's current one.
    own = list(db.execute_sql(
        "SELECT id, flow_id, template_yaml, created_at FROM trail "
        "WHERE template_yaml IS NOT NULL AND template_yaml <> '' ORDER BY id"))
    pinned = [(_random_id(), trail_id, flow_id, text, stamp)
              for trail_id, flow_id, text, stamp in own]
    cursor.executemany(
        "INSERT INTO flow_template (id, flow_id, template_yaml, legacy_template, for_trail, "
        f"created_at) VALUES ({p}, {p}, {p}, NULL, TRUE, {p})",
        [(uid, flow_id, text, stamp) for uid, _, flow_id, text, stamp in pinned])
    cursor.executemany(f"UPDATE trail SET flow_template_id = {p} WHERE id = {p}",
                       [(uid, trail_id) for uid, trail_id, *_ in pinned])
    db.execute_sql("UPDATE trail SET flow_template_id = (SELECT f.template FROM flow f "
                   "WHERE f.id = trail.flow_id) WHERE flow_template_id IS NULL")

    after = 0
    while True:
        ids = [row[0] for row in db.execute_sql(
            f"SELECT id FROM artifact WHERE id > {p} ORDER BY id LIMIT {BATCH}", (after,))]
        if not ids:
            break
        cursor.executemany(f"UPDATE artifact SET uid = {p} WHERE id = {p}",
                           [(_row_shaped(row_id), row_id) for row_id in ids])
        after = ids[-1]
    migrator.migrate(migrator.add_index("artifact", ("uid",), True))
