"""``serve`` names the options of its configuration that nothing here reads, once at start.

The check of a file with options not ours runs in a child process (oslo.messaging's option
list stays out of the serving process); this pins that the operator still gets the line."""

from __future__ import annotations

import pytest

from support.server import ServerProcess

pytestmark = pytest.mark.integration

REPORT = "options in the configuration that this service does not use"


def test_serve_logs_the_unused_options_of_a_designate_conf() -> None:
    foreign = {"DEFAULT": {"log_dir": "/var/log/designate"},
               "oslo_messaging_rabbit": {"heartbeat_timeout_threshold": 30},
               "made_up": {"colour": "blue"}}
    with ServerProcess(options=foreign) as server:
        lines = [line for line in server.log_path.read_text().splitlines() if REPORT in line]
    assert len(lines) == 1
    assert "[DEFAULT] log_dir" in lines[0] and "[made_up] colour" in lines[0]
    assert "heartbeat_timeout_threshold" not in lines[0]  # oslo.messaging's: read by a library


def test_serve_with_only_our_options_logs_no_report() -> None:
    with ServerProcess() as server:
        assert REPORT not in server.log_path.read_text()
