"""WSGI entry point for any WSGI server: `gunicorn 'rest_shim.wsgi:app'`.

Settings come from EVIDENCE_* variables; with EVIDENCE_GRPC_TARGET set the shim calls that
gRPC server, otherwise it runs the servicers in-process against EVIDENCE_DATABASE_URL."""

from evidence_grpc.config import Settings
from evidence_grpc.storage.db import init_database

from .app import create_app

settings = Settings.from_env()
if not settings.grpc_target:
    init_database(settings.database_url)
app = create_app(settings)
