"""`adapters.http.request` against real sockets: every failure is one `ServiceError`."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from tests.capture_server import CaptureServer, refused_url
from thoughtforge.adapters import http
from thoughtforge.adapters.http import Reply, request
from thoughtforge.errors import ServiceError

TOKEN = "sekrit-t0ken-never-shown"


@pytest.fixture
def server() -> Iterator[CaptureServer]:
    with CaptureServer() as server:
        yield server


@pytest.fixture
def silent_url() -> Iterator[str]:
    """A server that accepts connections (the kernel does, from its backlog) and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"


class RawServer:
    """Answers the first connection with `answer` as raw bytes; then closes it, or with `hold`
    keeps it open (sending nothing more) until the server is closed."""

    def __init__(self, answer: bytes, *, hold: bool = False) -> None:
        self._answer = answer
        self._hold = hold
        self._closed = threading.Event()
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen()
        self._listener.settimeout(10)  # a test that never connects frees the thread anyway
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def __enter__(self) -> RawServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._closed.set()
        self._thread.join(10)
        self._listener.close()

    def _serve(self) -> None:
        try:
            connection, _ = self._listener.accept()
        except OSError:
            return
        with connection:
            connection.recv(65536)
            connection.sendall(self._answer)
            if self._hold:
                self._closed.wait(10)


def test_a_2xx_reply_gives_its_status_and_body(server: CaptureServer) -> None:
    server.answer(201, {"id": 7})
    reply = request("POST", server.url + "/api/tasks", json_body={"title": "x"}, timeout=10)
    assert reply.status == 201 and reply.parsed() == {"id": 7}
    [sent] = server.requests
    assert sent.json() == {"title": "x"}
    assert sent.headers["Content-Type"] == "application/json"


def test_a_500_is_a_service_error_with_the_status_and_the_body(server: CaptureServer) -> None:
    server.answer(500, "database is locked")
    with pytest.raises(ServiceError) as raised:
        request("GET", server.url + "/api/projects", timeout=10)
    assert raised.value.status == 500
    assert str(raised.value) == f"GET {server.url}/api/projects: HTTP 500: database is locked"


def test_a_refused_connection_names_the_method_and_url() -> None:
    url = refused_url() + "/tf-alerts"
    with pytest.raises(ServiceError) as raised:
        request("POST", url, body=b"hi", timeout=2)
    assert str(raised.value).startswith(f"POST {url}: ")
    assert "refused" in str(raised.value).lower()
    assert raised.value.status is None


def test_a_server_that_never_answers_times_out(silent_url: str) -> None:
    with pytest.raises(ServiceError) as raised:
        request("GET", silent_url + "/v1/health", timeout=0.3)
    assert str(raised.value) == f"GET {silent_url}/v1/health: timed out"


def test_an_error_page_that_stalls_is_still_a_service_error_with_the_status() -> None:
    """The body of an error reply is read for the message; a stall there is no crash."""
    stalled = b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 100\r\n\r\nupstr"
    with RawServer(stalled, hold=True) as server, pytest.raises(ServiceError) as raised:
        request("GET", server.url + "/api/projects", timeout=0.3)
    assert raised.value.status == 502
    assert str(raised.value).startswith(f"GET {server.url}/api/projects: HTTP 502")


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (b"SSH-2.0-OpenSSH_9.6\r\n", "the answer is not HTTP (it began 'SSH-2.0-OpenSSH_9.6')"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\ncut", "IncompleteRead"),
    ],
    ids=["not-http", "cut-short"],
)
def test_an_answer_that_is_not_proper_http_is_a_service_error(answer: bytes, reason: str) -> None:
    """Before, these escaped as `http.client` errors: past a channel's `except ServiceError`,
    they kept the next channels from being told and crashed `doctor`."""
    with RawServer(answer) as server, pytest.raises(ServiceError) as raised:
        request("GET", server.url + "/v1/health", timeout=10)
    assert str(raised.value).startswith(f"GET {server.url}/v1/health: ")
    assert reason in str(raised.value)


@pytest.mark.parametrize(
    "value",
    [f"Bearer {TOKEN}\r\nX-Injected: 1", f"Bearer {TOKEN}é", f"Bearer {TOKEN}\n"],
    ids=["crlf", "non-ascii", "newline"],
)
def test_a_header_value_it_cannot_send_is_refused_without_echoing_it(
    server: CaptureServer, value: str
) -> None:
    with pytest.raises(ServiceError) as raised:
        request("POST", server.url + "/tf-alerts", timeout=10, headers={"Authorization": value})
    message = str(raised.value)
    assert "Authorization" in message and server.url in message
    assert TOKEN not in message
    assert server.requests == []


def test_reply_json_of_a_body_that_is_not_json_is_a_service_error() -> None:
    reply = Reply(status=200, body=b"<html>captive portal</html>")
    with pytest.raises(ServiceError, match="not JSON") as raised:
        reply.parsed()
    assert raised.value.status == 200


def test_reply_json_of_an_empty_body_is_none() -> None:
    assert Reply(status=204, body=b"").parsed() is None


def _pending_connections(listener: socket.socket) -> int:
    listener.setblocking(False)
    count = 0
    while True:
        try:
            listener.accept()[0].close()
        except BlockingIOError:
            return count
        count += 1


def test_a_service_that_did_not_answer_is_not_called_again_for_a_while(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/api/tasks"
        with pytest.raises(ServiceError, match="timed out"):
            http.request("GET", url, timeout=0.3)
        with pytest.raises(ServiceError, match=r"not tried: it did not answer \d+ s ago"):
            http.request("PUT", url, timeout=0.3)
        assert _pending_connections(listener) == 1, "the second call never connected"

        monkeypatch.setattr(http, "QUIET_SECONDS", 0.0)
        with pytest.raises(ServiceError, match="timed out"):
            http.request("GET", url, timeout=0.3)
        assert _pending_connections(listener) == 1, "after the quiet period it tries again"


def test_a_reply_larger_than_the_limit_is_refused_not_buffered(
    server: CaptureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http, "MAX_REPLY_BYTES", 1000)
    server.answer(200, b"x" * 5000)
    with pytest.raises(ServiceError, match="the reply is over 1000 bytes"):
        request("GET", server.url + "/api/projects", timeout=5)
    server.answer(200, b"x" * 1000)
    assert len(request("GET", server.url + "/api/projects", timeout=5).body) == 1000


class TrickleServer(RawServer):
    """Answers a whole, valid reply one byte at a time, `BYTE_GAP_SECONDS` apart: each read gets
    a byte well within any socket timeout, so only a deadline on the request can stop it."""

    BYTE_GAP_SECONDS = 0.05

    def __init__(self, answer: bytes) -> None:
        self.sent = 0
        super().__init__(answer)

    def _serve(self) -> None:
        try:
            connection, _ = self._listener.accept()
        except OSError:
            return
        with connection:
            connection.recv(65536)
            for byte in self._answer:
                if self._closed.wait(self.BYTE_GAP_SECONDS):
                    return
                try:
                    connection.sendall(bytes([byte]))
                except OSError:
                    return
                self.sent += 1


def test_a_service_that_trickles_its_answer_is_cut_off_at_the_timeout() -> None:
    """Before, `timeout` bounded each socket read, not the request: an endpoint sending a byte a
    second held the courier's one thread for the whole run."""
    body = b"x" * 100
    answer = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + body
    with TrickleServer(answer) as server:
        with pytest.raises(ServiceError) as raised:
            request("POST", server.url + "/hook", timeout=0.5, body=b"{}")
        assert str(raised.value) == f"POST {server.url}/hook: timed out"
        assert server.sent < len(answer), "the request gave up before the answer was complete"
