"""Server-side sessions of the web pages: the cookie holds a random id, this table its SHA-256,
the SHA-256 of the API key the session was opened with, its organization and when it was
opened and last used (domain.web_sessions). Frozen copy of the model."""

import peewee


def up(migrator, db):
    class Base(peewee.Model):
        class Meta:
            database = db
            legacy_table_names = False

    # Stand-in for the table of 0001, only referenced here.
    class Organization(Base):
        pass

    class WebSession(Base):
        id_hash = peewee.CharField(unique=True)
        key_hash = peewee.CharField(index=True)
        organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
        created_at = peewee.DoubleField()
        last_seen_at = peewee.DoubleField()

    db.create_tables([WebSession])
