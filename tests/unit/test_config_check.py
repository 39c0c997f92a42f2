"""``manage config check``: the options of a designate.conf that nothing here reads, by name."""

from __future__ import annotations

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
