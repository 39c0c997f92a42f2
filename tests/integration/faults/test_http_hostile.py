"""Hostile HTTP clients against a real ``openkeel-designate serve``, over raw sockets.

What the in-process tests (``tests/integration/api/test_hostile_bodies.py``) cannot show: how the
listener (uvicorn + ``api/listener.py``) treats the connection itself.  A chunked upload past the
body limit is answered 413 at the limit and drained without growing the process; hostile JSON
answers 400 and the keep-alive connection stays usable; a lying Content-Length, headers or a
body that never end, idle sockets and oversized headers are cut with an answer in Designate's
format; a client vanishing mid-body is one log line; the connection cap refuses one too many.
The server runs with short timeouts so the test waits seconds, not minutes; figures are printed.
"""

from __future__ import annotations

import http.client
import json
import select
import socket
import threading
import time
from collections.abc import Callable, Iterator

import psutil
import pytest
from support.server import ServerProcess

pytestmark = pytest.mark.integration

HEADER_TIMEOUT = 1.5
BODY_TIMEOUT = 4.0
KEEP_ALIVE = 1.0
LIMIT = 114688  # [oslo_middleware] max_request_body_size, the default
POST_HEAD = ("POST /v2/zones HTTP/1.1\r\nHost: api\r\nContent-Type: application/json\r\n"
             "X-Auth-Project-ID: h1-hostile\r\nX-Roles: admin\r\n")


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    options = {"service:api": {"header_timeout": HEADER_TIMEOUT, "body_timeout": BODY_TIMEOUT,
                               "keep_alive_timeout": KEEP_ALIVE}}
    with ServerProcess(options=options, project="h1-hostile") as srv:
        yield srv


@pytest.fixture
def new_log(server: ServerProcess) -> Callable[[], str]:
    """What the server logged since the test began."""
    start = server.log_path.stat().st_size

    def read() -> str:
        with open(server.log_path, "rb") as log:
            log.seek(start)
            return log.read().decode(errors="replace")
    return read


def connect(srv: ServerProcess) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", srv.api_port), timeout=10)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def read_response(sock: socket.socket, timeout: float = 10.0) -> tuple[int, dict, bytes]:
    """One HTTP/1.1 response with a Content-Length (all of ours have one)."""
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before a response: {data!r}")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return status, headers, rest[:length]


def closed_by_server(sock: socket.socket, timeout: float = 10.0) -> bool:
    """True when the server closes (EOF or reset) within ``timeout``, discarding any data."""
    sock.settimeout(timeout)
    try:
        while sock.recv(65536):
            pass
        return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def assert_designate_error(status: int, headers: dict, body: bytes, code: int) -> dict:
    assert status == code, (status, body)
    request_id = headers["x-openstack-request-id"]
    parsed = json.loads(body)
    assert parsed["code"] == code and parsed["request_id"] == request_id, parsed
    return parsed


def rss(pid: int) -> int:
    return psutil.Process(pid).memory_info().rss


class PeakRss(threading.Thread):
    """Samples a process's RSS every 20 ms until stopped; ``peak`` is the largest seen."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak, self._stop_event = pid, rss(pid), threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(0.02):
            self.peak = max(self.peak, rss(self.pid))

    def stop(self) -> int:
        self._stop_event.set()
        self.join()
        return self.peak


def test_chunked_upload_past_the_limit_is_413_at_the_limit_and_memory_stays_bounded(
        server, new_log):
    before = rss(server.pid)
    sampler = PeakRss(server.pid)
    sampler.start()
    sock = connect(server)
    sock.sendall((POST_HEAD + "Transfer-Encoding: chunked\r\n\r\n").encode())
    chunk = b"%x\r\n" % 65536 + b"a" * 65536 + b"\r\n"
    sock.sendall(chunk * 2)  # 131072 bytes: past the limit, and the body goes on
    status, headers, body = read_response(sock)
    assert status == 413 and body == b"Request is too large."
    assert headers["x-openstack-request-id"].startswith("req-")
    sent, started = 2 * 65536, time.monotonic()
    try:
        while sent < 200 * 2**20:  # the rest of a 200 MB upload: read and dropped
            sock.sendall(chunk * 16)
            sent += 16 * 65536
        sock.sendall(b"0\r\n\r\n")
        drained = True
    except (BrokenPipeError, ConnectionResetError):  # cut at body_timeout: also acceptable
        drained = False
    seconds = time.monotonic() - started
    if drained:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: api\r\n\r\n")
        assert read_response(sock)[0] == 200, "the connection is usable after the 413"
    sock.close()
    peak = sampler.stop()
    print(f"chunked upload of {sent / 2**20:.0f} MB: RSS {before / 2**20:.0f} MB before, "
          f"peak {peak / 2**20:.0f} MB (+{(peak - before) / 2**20:.1f} MB), sent in "
          f"{seconds:.2f} s, drained={drained}")
    assert peak - before < 64 * 2**20, "the body was buffered"
    assert "Traceback" not in new_log()


def test_content_length_past_the_limit_is_the_same_413(server):
    sock = connect(server)
    sock.sendall((POST_HEAD + f"Content-Length: {LIMIT + 1}\r\n\r\n").encode())
    status, headers, body = read_response(sock)  # answered before any body byte is sent
    assert status == 413 and body == b"Request is too large."
    assert headers["x-openstack-request-id"].startswith("req-")
    sock.sendall(b" " * (LIMIT + 1) + b"GET / HTTP/1.1\r\nHost: api\r\n\r\n")
    assert read_response(sock)[0] == 200
    sock.close()


HOSTILE = [
    ("POST", "/v2/zones", b'{"name": "a.example.", "email": "a@b.c", "ttl": Infinity}', 400),
    ("POST", "/v2/zones", b'{"name": "a.example.", "email": "a@b.c", "ttl": -Infinity}', 400),
    ("POST", "/v2/zones", b'{"name": "a.example.", "email": "a@b.c", "ttl": NaN}', 400),
    ("POST", "/v2/zones", b'{"name": "a.example.", "email": "a@b.c", "description": "\\ud800"}',
     400),
    ("POST", "/v2/zones", b'{"name": "a.example.", "email": "\xff"}', 400),
    ("POST", "/v2/zones", b"[" * 10000 + b"]" * 10000, 400),
    ("POST", "/v2/zones", b'{"a":' * 10000 + b"1" + b"}" * 10000, 400),
    ("POST", "/v2/zones", b'{"name": ', 400),
    ("POST", "/v2/zones", b"[1]", 500),  # README quirk: kept
    ("POST", "/v2/zones", b'"s"', 500),  # README quirk: kept
    ("GET", "/v2/recordsets?zone_id=x", None, 500),  # README quirk: kept
    ("GET", "/v2/nothing", None, 404),
    ("PUT", "/v2/zones", b"{}", 405),
]


def test_hostile_json_keeps_the_keep_alive_connection(server, new_log):
    conn = http.client.HTTPConnection("127.0.0.1", server.api_port, timeout=10)
    conn.connect()
    local = conn.sock.getsockname()
    for method, path, body, code in HOSTILE:
        conn.request(method, path, body=body, headers=server.headers())
        response = conn.getresponse()
        payload = response.read()
        headers = {k.lower(): v for k, v in response.getheaders()}
        assert_designate_error(response.status, headers, payload, code)
        assert headers.get("connection") != "close", (path, body)
        assert conn.sock is not None and conn.sock.getsockname() == local, "same connection"
    conn.request("GET", "/v2/zones", headers=server.headers())
    assert conn.getresponse().status == 200
    assert conn.sock.getsockname() == local
    conn.close()
    log = new_log()
    assert "Traceback" not in log, log[-3000:]


def test_upgrade_header_is_ignored_quietly(server, new_log):
    sock = connect(server)
    for upgrade in (b"websocket", b"h2c"):
        sock.sendall(b"GET / HTTP/1.1\r\nHost: api\r\nConnection: Upgrade\r\nUpgrade: " + upgrade
                     + b"\r\nSec-WebSocket-Version: 13\r\n"
                     b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
        assert read_response(sock)[0] == 200, "answered as plain HTTP, connection kept"
    sock.close()
    assert "WARNING" not in new_log()


def test_lying_content_length(server):
    # Longer than sent: the body never completes -> 408 at body_timeout, then close.
    sock = connect(server)
    sock.sendall((POST_HEAD + "Content-Length: 1000\r\n\r\n").encode() + b'{"name": ')
    started = time.monotonic()
    status, headers, body = read_response(sock, timeout=BODY_TIMEOUT + 10)
    waited = time.monotonic() - started
    assert_designate_error(status, headers, body, 408)
    assert headers["connection"] == "close" and closed_by_server(sock)
    print(f"stalled body cut after {waited:.1f} s (body_timeout {BODY_TIMEOUT})")
    # Shorter than sent: what follows is not HTTP -> 400 in Designate's format, then close.
    sock = connect(server)
    sock.sendall((POST_HEAD + "Content-Length: 2\r\n\r\n").encode() + b"{}" + b"x" * 200_000)
    answers = []
    try:
        while True:
            answers.append(read_response(sock))
    except (ConnectionError, socket.timeout):
        pass
    sock.close()
    assert answers, "an answer before the close"
    for status, headers, body in answers:
        assert status == 400 or status == 202, status
        assert_designate_error(status, headers, body, 400) if status == 400 else None
    assert answers[-1][1]["connection"] == "close"


def _left_to_read(sock: socket.socket) -> bytes:
    """What the peer sent before it closed (b"" when the reset discarded it)."""
    try:
        sock.setblocking(False)
        return sock.recv(65536)
    except OSError:
        return b""


def test_slow_loris_headers_are_cut(server, new_log):
    slow = []
    for _ in range(20):
        sock = connect(server)
        sock.sendall(b"GET /v2/zones HTTP/1.1\r\nHost: api\r\nX-Slow: ")
        slow.append(sock)
    answers: dict[socket.socket, bytes] = {}
    started = time.monotonic()
    while len(answers) < len(slow) and time.monotonic() - started < HEADER_TIMEOUT + 20:
        for sock in slow:  # one more header byte each, well inside any idle timeout
            if sock not in answers:
                try:
                    sock.send(b"a")
                except OSError:  # the server answered and closed since the last look:
                    answers[sock] = _left_to_read(sock)  # its 408 is still queued here
        readable, _, _ = select.select([s for s in slow if s not in answers], [], [], 0.2)
        for sock in readable:
            answers[sock] = sock.recv(65536)
        # Meanwhile an honest client is served.
        honest = http.client.HTTPConnection("127.0.0.1", server.api_port, timeout=10)
        honest.request("GET", "/", headers={"Accept": "application/json"})
        assert honest.getresponse().status == 200
        honest.close()
    print(f"20 slow-loris connections cut after {time.monotonic() - started:.1f} s "
          f"(header_timeout {HEADER_TIMEOUT})")
    assert len(answers) == len(slow), "a slow-loris connection is still open"
    for sock, data in answers.items():
        assert data.startswith(b"HTTP/1.1 408 "), data[:100]
        assert b"x-openstack-request-id: req-" in data and b'"code":408' in data
        assert closed_by_server(sock)
        sock.close()
    assert "Traceback" not in new_log()


def test_idle_connections_are_closed(server):
    silent = connect(server)  # never sends a byte
    started = time.monotonic()
    silent.settimeout(HEADER_TIMEOUT + 10)
    assert silent.recv(100) == b"", "closed without an answer: there was no request"
    print(f"silent connection closed after {time.monotonic() - started:.1f} s")
    silent.close()
    kept = connect(server)
    kept.sendall(b"GET / HTTP/1.1\r\nHost: api\r\n\r\n")
    assert read_response(kept)[0] == 200
    started = time.monotonic()
    assert closed_by_server(kept, KEEP_ALIVE + 10), "idle keep-alive connection closed"
    print(f"idle keep-alive connection closed after {time.monotonic() - started:.1f} s "
          f"(keep_alive_timeout {KEEP_ALIVE})")
    kept.close()


def test_oversized_headers_are_431(server):
    for request in (b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: api\r\n\r\n",
                    b"GET / HTTP/1.1\r\n" + b"X-Big: " + b"b" * 70_000 + b"\r\n\r\n",
                    b"GET / HTTP/1.1\r\n" + b"".join(b"X-%d: v\r\n" % i for i in range(9000))
                    + b"\r\n"):
        sock = connect(server)
        try:
            sock.sendall(request)
        except (BrokenPipeError, ConnectionResetError):
            pass  # cut while still sending: the answer is read below all the same
        status, headers, body = read_response(sock)
        assert_designate_error(status, headers, body, 431)
        assert headers["connection"] == "close" and closed_by_server(sock)
        sock.close()
    # A header line that never ends is cut as it grows, not buffered.
    sock = connect(server)
    sock.sendall(b"GET / HTTP/1.1\r\nX-Endless: ")
    try:
        for _ in range(100):
            sock.sendall(b"c" * 16384)
    except (BrokenPipeError, ConnectionResetError):
        pass
    assert read_response(sock)[0] == 431
    sock.close()


def test_client_gone_mid_body_is_one_log_line(server, new_log):
    for head in ("Transfer-Encoding: chunked\r\n\r\n5\r\n{\"nam", "Content-Length: 500\r\n\r\n{"):
        sock = connect(server)
        sock.sendall((POST_HEAD + head).encode())
        time.sleep(0.2)  # the route is reading the body
        sock.close()
    deadline = time.monotonic() + 10
    while new_log().count("went away") < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    log = new_log()
    assert log.count("went away") == 2, log
    assert "Traceback" not in log and "Exception in ASGI" not in log, log


def test_connection_cap():
    options = {"service:api": {"max_connections": 5, "header_timeout": 30}}
    with ServerProcess(options=options, project="h1-hostile") as srv:
        held = [connect(srv) for _ in range(5)]
        time.sleep(0.3)  # all five accepted by the server
        extra = connect(srv)
        status, headers, body = read_response(extra)
        assert_designate_error(status, headers, body, 503)
        assert headers["connection"] == "close" and closed_by_server(extra)
        extra.close()
        held.pop().close()
        time.sleep(0.3)
        sock = connect(srv)
        sock.sendall(b"GET / HTTP/1.1\r\nHost: api\r\n\r\n")
        assert read_response(sock)[0] == 200, "a slot freed is usable again"
        for sock in [*held, sock]:
            sock.close()
        log = srv.log_path.read_text(errors="replace")
        assert log.count("API connection refused") == 1 and "Traceback" not in log
