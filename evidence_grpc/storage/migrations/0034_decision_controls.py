"""A decision names its control in a column of its own (issue 48): a control's decisions were
found by a substring match of `"control":"<identifier>"` in the summary of every decision of the
organization, a cost growing with all of them; now by an index of the organization, the
control and the list's order (created_at, id), kept for the rows that have one.

Filled here for the decisions made before, from their summary, exactly as that match found
them: the summary's `control` when it is a text of at most 255 characters (a control's
identifier is no longer) and the match of it finds the summary. Nullable, added with a plain
ALTER TABLE (a NOT NULL column would make peewee rebuild SQLite's table, and the rows of the
tables that reference it with ON DELETE CASCADE would go).

A control's decisions become a paged list (0033's `list_entry`, `list_size`): the decisions of
each control there is are numbered here in the list's order (created_at, id: the order its
pages answered them) and counted. Frozen: SQL only, no domain or storage imports; the list's
kind and code are domain.kernel.list_sizes's."""

import json

PAGE = 5_000  # decisions read a round
LONGEST = 255  # the longest identifier a control has (its column's, limits.NAME)
KIND, CODE = "decisions of control", 5
# A control's decisions: the decisions naming its identifier in its organization
DECISIONS = ("FROM attestation a JOIN control c ON c.organization_id = a.organization_id "
             "AND c.identifier = a.control AND a.type = 'decision'")


def _control(summary_text):
    """The control the substring match found the decision of, or None."""
    try:
        summary = json.loads(summary_text) if summary_text else None
    except ValueError:
        return None
    control = summary.get("control") if isinstance(summary, dict) else None
    if not isinstance(control, str) or len(control) > LONGEST:
        return None
    return control if f'"control":{json.dumps(control)}' in summary_text else None


def up(migrator, db):
    db.execute_sql("ALTER TABLE attestation ADD COLUMN control VARCHAR(255)")
    p = db.param  # the engine's placeholder
    cursor = db.cursor()
    after = 0
    while True:
        rows = list(db.execute_sql(
            f"SELECT id, summary FROM attestation WHERE type = 'decision' AND id > {p} "
            f"ORDER BY id LIMIT {PAGE}", (after,)))
        named = [(control, row_id) for row_id, summary in rows
                 if (control := _control(summary)) is not None]
        if named:
            cursor.executemany(f"UPDATE attestation SET control = {p} WHERE id = {p}", named)
        if len(rows) < PAGE:
            break
        after = rows[-1][0]
    db.execute_sql("CREATE INDEX attestation_organization_id_control_created_at_id ON attestation "
                   "(organization_id, control, created_at, id) WHERE control IS NOT NULL")
    db.execute_sql(f"INSERT INTO list_size (kind, owner, size) SELECT {p}, c.id, COUNT(*) "
                   f"{DECISIONS} GROUP BY c.id", (KIND,))
    db.execute_sql(f"INSERT INTO list_entry (list_kind, owner, position, item) SELECT {CODE}, "
                   f"c.id, ROW_NUMBER() OVER (PARTITION BY c.id ORDER BY a.created_at, a.id), a.id "
                   f"{DECISIONS}")
