"""Process logging: oslo.log's option names (``debug``, ``use_json``), one format for all roles.

The JSON form follows oslo.log's ``JSONFormatter`` keys that log shippers index (``message``,
``asctime``, ``levelname``, ``name``, ``context.request_id`` …), one object per line, so an
operator's existing pipeline for Designate parses ours unchanged.
"""

from __future__ import annotations

import json
import logging
import socket
import traceback
from datetime import datetime, timezone

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    """One JSON object per record; ``request_id`` (when the record has one) under ``context``."""

    hostname = socket.gethostname()

    def format(self, record: logging.LogRecord) -> str:
        body = {
            "message": record.getMessage(),
            "asctime": datetime.fromtimestamp(record.created, timezone.utc).isoformat(),
            "name": record.name,
            "levelname": record.levelname,
            "levelno": record.levelno,
            "created": record.created,
            "process": record.process,
            "thread_name": record.threadName,
            "funcname": record.funcName,
            "lineno": record.lineno,
            "hostname": self.hostname,
            "context": {"request_id": getattr(record, "request_id", None)},
            "extra": {key: getattr(record, key) for key in ("method", "route", "status",
                                                            "duration") if hasattr(record, key)},
            "traceback": traceback.format_exception(*record.exc_info)
            if record.exc_info else None,
        }
        return json.dumps(body, default=str)


def configure(debug: bool = False, use_json: bool = False) -> None:
    """Replace the root handlers: the formats above on stderr (systemd and Kubernetes collect)."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if use_json else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if debug else logging.INFO)
