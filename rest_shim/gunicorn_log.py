"""gunicorn's logger (its `logger_class`), writing through the process's own handlers.

gunicorn gives its loggers, `gunicorn.error` (the arbiter's and the workers' lines: "Listening
at", "Booting worker", a worker's failure) and `gunicorn.access`, handlers of its own that write
its own text format to stderr. Here they have none and pass their records on to the root
logger, whose handler (observability.configure_logging) writes every line of the process in one
form: JSON, or `key=value` text. gunicorn's access log stays off (no `accesslog` is set): the
shim writes its own line per request, with the request id and the route."""

from __future__ import annotations

from typing import Any

from gunicorn import glogging


class Logger(glogging.Logger):
    def setup(self, cfg: Any) -> None:
        super().setup(cfg)  # levels, and whether the access log is on
        for log in (self.error_log, self.access_log):
            for handler in list(log.handlers):
                log.removeHandler(handler)
            log.propagate = True
