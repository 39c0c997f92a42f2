"""``manage config check``: the options of a designate.conf that nothing here reads, by name."""

from __future__ import annotations

import os
import subprocess
import sys

from openkeel_designate import config_check

CONF = """[DEFAULT]
transport_url = rabbit://guest:guest@127.0.0.1:5672/
debug = True
log_dir = /var/log/designate
quota_zones = 100
# commented = out
[service:central]
workers = 4
managed_resource_email = hostmaster@example.org
[service:worker]
threshold-percentage = 100
notify_delay = 2
[service:sink]
workers = 2
[coordination]
backend_url = redis://127.0.0.1
[oslo_messaging_rabbit]
heartbeat_timeout_threshold = 30
[made_up]
colour = blue
"""


def test_unused_options_are_named_with_their_meaning(tmp_path) -> None:
    path = tmp_path / "designate.conf"
    path.write_text(CONF)
    unused = {(u.group, u.name): u.meaning for u in config_check.unused([str(path)])}
    assert set(unused) == {("DEFAULT", "log_dir"), ("service:central", "workers"),
                           ("service:worker", "notify_delay"), ("service:sink", "workers"),
                           ("coordination", "backend_url"), ("made_up", "colour")}
    assert "asyncio process" in unused[("service:central", "workers")]
    assert "leases" in unused[("coordination", "backend_url")]
    assert "typo" in unused[("made_up", "colour")]
    line = config_check.report_line(config_check.unused([str(path)]))
    assert "[DEFAULT] log_dir" in line and "[made_up] colour" in line


OURS_ONLY = """[DEFAULT]
debug = True
quota_zones = 100
[service:api]
listen = 127.0.0.1:9001
"""


def test_a_file_of_our_acting_options_needs_no_report(tmp_path) -> None:
    ours, foreign = tmp_path / "ours.conf", tmp_path / "designate.conf"
    ours.write_text(OURS_ONLY)
    foreign.write_text(CONF)
    assert config_check.acts_here([str(ours)])
    assert config_check.unused([str(ours)]) == []
    assert not config_check.acts_here([str(foreign)])


def test_the_child_reports_what_the_check_in_process_reports(tmp_path) -> None:
    path = tmp_path / "designate.conf"
    path.write_text(CONF)
    expected = config_check.report_line(config_check.unused([str(path)]))
    assert config_check.report_from_child([str(path)]) == expected


def test_our_options_are_checked_without_importing_oslo_messaging(tmp_path) -> None:
    """The serving process must not keep oslo.messaging (eventlet, kombu …) for this check."""
    path = tmp_path / "ours.conf"
    path.write_text(OURS_ONLY)
    code = ("import sys; from openkeel_designate import config_check; "
            f"config_check.unused([{str(path)!r}]); print('oslo_messaging' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.stdout.strip() == "False"
