"""WSGI entry point for any WSGI server: `gunicorn 'rest_shim.wsgi:app'`.

Settings come from EVIDENCE_* variables; with EVIDENCE_GRPC_TARGET set the shim calls that
gRPC server, otherwise it runs the servicers in-process against EVIDENCE_DATABASE_URL, which
must be migrated by this release (`evidence-server migrate`): the app refuses to load on a
database with migrations pending or that a newer release migrated."""

from evidence_grpc.config import Settings
from evidence_grpc.storage.db import init_database, require_current_schema

from .app import create_app

settings = Settings.from_env()
if not settings.grpc_target:
    init_database(settings.database_url)
    require_current_schema()
app = create_app(settings)
