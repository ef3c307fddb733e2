"""Attachment bytes move from blob.content into 256 KiB blob_chunk rows: one large value
made SQLite hold two copies of a file in memory while writing it."""

import peewee

CHUNK = 256 * 1024


def up(migrator, db):
    class Blob(peewee.Model):
        sha256 = peewee.CharField(primary_key=True)
        content = peewee.BlobField()

        class Meta:
            database = db
            table_name = "blob"

    class BlobChunk(peewee.Model):
        blob = peewee.ForeignKeyField(Blob, on_delete="CASCADE", column_name="blob_sha256")
        seq = peewee.IntegerField()
        data = peewee.BlobField()

        class Meta:
            database = db
            table_name = "blob_chunk"
            indexes = ((("blob", "seq"), True),)

    db.create_tables([BlobChunk])
    for sha256, content in Blob.select(Blob.sha256, Blob.content).tuples().iterator():
        content = bytes(content)
        for seq, start in enumerate(range(0, len(content), CHUNK)):
            BlobChunk.insert(blob=sha256, seq=seq, data=content[start:start + CHUNK]).execute()
    migrator.migrate(migrator.drop_column("blob", "content"))
