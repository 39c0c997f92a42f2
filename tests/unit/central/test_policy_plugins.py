"""oslo.policy's rule-check plugins are imported when a rule names them, not at start."""

from __future__ import annotations

import os
import subprocess
import sys

from oslo_policy import _checks

from openkeel_designate.central import policy


def test_a_deferred_plugin_still_makes_its_check_when_a_rule_names_it(monkeypatch) -> None:
    monkeypatch.setattr(_checks, "extension_checks", None)
    policy._defer_rule_check_plugins()
    assert isinstance(_checks.extension_checks["http"], policy._DeferredCheck)
    check = _checks.extension_checks["http"]("http", "//127.0.0.1:9/allow")
    assert type(check).__name__ == "HttpCheck"
    assert check.match == "//127.0.0.1:9/allow"
    assert {"http", "https"} <= set(_checks.extension_checks)


def test_building_the_policy_does_not_import_requests() -> None:
    code = ("import sys; from openkeel_designate import config; "
            "from openkeel_designate.central import policy; "
            "policy.Policy(config.load([])); print('requests' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.stdout.strip().splitlines()[-1] == "False"
