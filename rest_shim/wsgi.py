"""WSGI entry point for any WSGI server: `gunicorn 'rest_shim.wsgi:app'`.

Settings come from EVIDENCE_* variables; with EVIDENCE_GRPC_TARGET set the shim calls that
gRPC server, otherwise it runs the servicers in-process against EVIDENCE_DATABASE_URL, which
must be migrated by this release (`evidence-server migrate`): the app refuses to load on a
database with migrations pending or that a newer release migrated, and as `serve` does, without
the transparency log's key (made when the database holds no log yet) or with a log not
consistent with the largest checkpoint signed of it."""

from evidence_grpc.config import Settings
from evidence_grpc.domain.transparency import keys
from evidence_grpc.storage.db import init_database, require_current_schema

from .app import create_app

settings = Settings.from_env()
if not settings.grpc_target:
    init_database(settings.database_url)
    require_current_schema()
    keys.prepare(settings.log_key_file, settings.log_key_name, default=settings.log_key_default)
app = create_app(settings)
