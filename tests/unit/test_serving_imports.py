"""What the serving process imports at start stays resident for its whole life (issue 13,
point 6: idle RSS).  Libraries needed only on some paths are imported where those paths run;
this guards against one of them coming back into the start-up imports."""

from __future__ import annotations

import os
import subprocess
import sys

# module: the path that needs it
ONLY_ON_SOME_PATHS = {
    "cryptography": "DNSSEC keys and signing (offload workers; enabling DNSSEC)",
    "oslo_messaging": "notifications and the sink; the configuration check's library options",
    "requests": "oslo.policy's http/https rule checks",
    "sqlalchemy.dialects.postgresql": "a PostgreSQL database",
    "alembic": "the schema step (schema_child)",
    "httpx": "Neutron's client (floating IP PTRs)",
    # nothing: routes are Starlette's (api/routing.py); FastAPI with pydantic was 13.8 MB
    "fastapi": "no path",
    "pydantic": "no path",
}


def test_serving_modules_leave_optional_libraries_unimported() -> None:
    code = ("import sys, openkeel_designate.cli, openkeel_designate.runtime, "
            "openkeel_designate.api.app; "
            f"print(sorted(m for m in {sorted(ONLY_ON_SOME_PATHS)!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.stdout.strip() == "[]"
