"""Which kind of actor acted, in the audit logs (issue 31): `actor_type` of the membership and
environment audit events and `user_type` of policy events, `user` or `service_account` (""
for an environment event without an actor). Events recorded before it were by users, except
those whose actor is the name of one of the organization's service accounts (now or ever
created, as its membership audit log says) that no member user has. Frozen: no domain or
storage imports."""

import peewee

# Names of service accounts of an organization (`{org}`: a column holding its id) that no
# member user of it has.
_ACCOUNT_NAMES = (
    "SELECT name FROM service_account WHERE organization_id = {org} "
    "UNION SELECT subject FROM membership_audit_event "
    "WHERE organization_id = {org} AND event_type = 'service_account_created' "
    "EXCEPT SELECT u.name FROM \"user\" u JOIN membership m ON m.user_id = u.id "
    "WHERE m.organization_id = {org}")


def up(migrator, db):
    migrator.migrate(
        migrator.add_column("membership_audit_event", "actor_type",
                            peewee.CharField(default="user")),
        migrator.add_column("environment_audit_event", "actor_type",
                            peewee.CharField(default="")),
        migrator.add_column("policy_event", "user_type", peewee.CharField(default="user")),
    )
    db.execute_sql(
        "UPDATE membership_audit_event SET actor_type = 'service_account' WHERE actor IN ("
        + _ACCOUNT_NAMES.format(org="membership_audit_event.organization_id") + ")")
    db.execute_sql("UPDATE environment_audit_event SET actor_type = 'user' WHERE actor <> ''")
    # The large table: the names of any organization's service accounts first (a few, hashed
    # once), then the organization's own for the rows they match.
    db.execute_sql(
        "UPDATE environment_audit_event SET actor_type = 'service_account' WHERE actor IN ("
        "SELECT name FROM service_account UNION SELECT subject FROM membership_audit_event "
        "WHERE event_type = 'service_account_created') AND actor IN (" + _ACCOUNT_NAMES.format(
            org="(SELECT e.organization_id FROM environment e "
                "WHERE e.id = environment_audit_event.environment_id)") + ")")
    db.execute_sql(
        "UPDATE policy_event SET user_type = 'service_account' WHERE user_name IN ("
        + _ACCOUNT_NAMES.format(
            org="(SELECT p.organization_id FROM policy p WHERE p.id = policy_event.policy_id)")
        + ")")
