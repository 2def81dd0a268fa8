from __future__ import annotations

import re
import time
from email.header import decode_header, make_header

import pytest
from pydantic import SecretStr

from tests.capture_server import CaptureServer, refused_url
from thoughtforge.adapters.notify.ntfy import check_ntfy, describe_ntfy, send_ntfy
from thoughtforge.config import NtfyChannel
from thoughtforge.core.hooks import EventType, Notification
from thoughtforge.errors import ServiceError

TOKEN = "tk_ntfy-t0ken-never-shown"
SUMMARY = "Project 'Wedding Plan' — now in polishing. ✓"


def _channel(url: str, token: str | None = None) -> NtfyChannel:
    return NtfyChannel(url=url, topic="tf-alerts", token=SecretStr(token) if token else None)


def _notification(
    name: str | None = "Wedding Plan", event_type: EventType = "milestone_complete"
) -> Notification:
    return Notification(
        project_id="wedding-plan-1",
        project_name=name,
        phase="polishing",
        event_type=event_type,
        summary=SUMMARY,
    )


def test_posts_the_summary_to_the_topic_with_title_priority_and_tags() -> None:
    with CaptureServer() as server:
        send_ntfy(_channel(server.url), _notification(), timeout=2)
    [sent] = server.requests
    assert (sent.method, sent.path) == ("POST", "/tf-alerts")
    assert sent.body == SUMMARY.encode("utf-8")
    assert sent.headers["Title"] == "ThoughtForge: Wedding Plan (polishing)"
    assert sent.headers["Priority"] == "3"
    assert sent.headers["Tags"] == "construction,thoughtforge"
    assert "Authorization" not in sent.headers


@pytest.mark.parametrize("name", ["Café Plan ☕", "Café", "two\nlines"])
def test_a_title_that_is_not_printable_ascii_is_an_rfc2047_encoded_word(name: str) -> None:
    with CaptureServer() as server:
        send_ntfy(_channel(server.url), _notification(name), timeout=2)
    title = server.requests[0].headers["Title"]
    assert re.fullmatch(r"=\?UTF-8\?B\?[A-Za-z0-9+/=]+\?=", title)
    assert str(make_header(decode_header(title))) == f"ThoughtForge: {name} (polishing)"


def test_without_a_name_the_title_names_the_project_id() -> None:
    with CaptureServer() as server:
        send_ntfy(_channel(server.url), _notification(None), timeout=2)
    assert server.requests[0].headers["Title"] == "ThoughtForge: wedding-plan-1 (polishing)"


@pytest.mark.parametrize(
    ("event_type", "priority", "tags"),
    [
        ("error", "4", "rotating_light,thoughtforge"),
        ("guard_triggered", "4", "warning,thoughtforge"),
        ("human_needed", "4", "raising_hand,thoughtforge"),
        ("convergence_success", "3", "white_check_mark,thoughtforge"),
        ("milestone_complete", "3", "construction,thoughtforge"),
    ],
)
def test_priority_and_tags_follow_the_event_type(
    event_type: EventType, priority: str, tags: str
) -> None:
    with CaptureServer() as server:
        send_ntfy(_channel(server.url), _notification(event_type=event_type), timeout=2)
    sent = server.requests[0]
    assert (sent.headers["Priority"], sent.headers["Tags"]) == (priority, tags)


def test_a_token_is_sent_as_a_bearer_authorization() -> None:
    with CaptureServer() as server:
        send_ntfy(_channel(server.url, TOKEN), _notification(), timeout=2)
    assert server.requests[0].headers["Authorization"] == f"Bearer {TOKEN}"


def test_a_refused_publish_is_a_service_error_with_the_status_and_no_token() -> None:
    with CaptureServer() as server:
        server.answer(403, '{"code":40301,"error":"forbidden"}')
        with pytest.raises(ServiceError) as raised:
            send_ntfy(_channel(server.url, TOKEN), _notification(), timeout=2)
    assert raised.value.status == 403
    assert f"{server.url}/tf-alerts" in str(raised.value)
    assert TOKEN not in str(raised.value)


def test_a_server_slower_than_the_timeout_is_a_service_error() -> None:
    with CaptureServer() as server:
        server.answer(delay=30)
        started = time.monotonic()
        with pytest.raises(ServiceError, match="timed out"):
            send_ntfy(_channel(server.url), _notification(), timeout=0.3)
        assert time.monotonic() - started < 10


def test_describe_names_the_server_and_topic_but_not_the_token() -> None:
    channel = _channel("https://ntfy.example.org", TOKEN)
    assert describe_ntfy(channel) == "ntfy https://ntfy.example.org/tf-alerts"


def test_check_asks_the_health_endpoint_without_publishing_or_a_token() -> None:
    with CaptureServer() as server:
        server.answer(200, {"healthy": True})
        assert check_ntfy(_channel(server.url, TOKEN), timeout=2) is None
    [asked] = server.requests
    assert (asked.method, asked.path) == ("GET", "/v1/health")
    assert "Authorization" not in asked.headers


@pytest.mark.parametrize(
    ("status", "body", "reason"),
    [
        (200, {"healthy": False}, "not a healthy ntfy server"),
        (200, "<html>a captive portal</html>", "not a healthy ntfy server"),
        (503, "maintenance", "HTTP 503"),
    ],
)
def test_check_reports_an_unhealthy_server(status: int, body: object, reason: str) -> None:
    with CaptureServer() as server:
        server.answer(status, body)
        problem = check_ntfy(_channel(server.url), timeout=2)
    assert problem is not None and reason in problem
    assert f"{server.url}/v1/health" in problem


def test_check_reports_an_unreachable_server() -> None:
    url = refused_url()
    problem = check_ntfy(_channel(url), timeout=2)
    assert problem is not None and f"{url}/v1/health" in problem
