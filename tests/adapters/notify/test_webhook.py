from __future__ import annotations

import pytest
from pydantic import SecretStr

from tests.capture_server import CaptureServer, refused_url
from thoughtforge.adapters.notify.webhook import check_webhook, public_url, send_webhook
from thoughtforge.config import WebhookChannel
from thoughtforge.core.hooks import Notification
from thoughtforge.errors import ServiceError

SECRET_PATH = "/services/T0AB12/B0CD34/xoxSecretPart"
SECRET_QUERY = "key=qs-secret-42"
TOKEN = "whk-t0ken-never-shown"
NOTIFICATION = Notification(
    project_id="cafe-plan-2",
    project_name="Café Plan ☕",
    phase="halted",
    event_type="guard_triggered",
    summary="Project 'Café Plan ☕' — halted in polishing: guard_stagnation. Review needed.",
)


def _channel(base: str, token: str | None = None) -> WebhookChannel:
    return WebhookChannel(
        type="webhook",
        url=f"{base}{SECRET_PATH}?{SECRET_QUERY}",
        token=SecretStr(token) if token else None,
    )


def _assert_redacted(text: str) -> None:
    for secret in ("T0AB12", "xoxSecretPart", "qs-secret-42", TOKEN):
        assert secret not in text


def test_posts_exactly_the_notification_fields_as_json() -> None:
    with CaptureServer() as server:
        send_webhook(_channel(server.url), NOTIFICATION, timeout=2)
    [sent] = server.requests
    assert (sent.method, sent.path) == ("POST", f"{SECRET_PATH}?{SECRET_QUERY}")
    assert sent.headers["Content-Type"] == "application/json"
    assert sent.json() == {
        "project_id": "cafe-plan-2",
        "project_name": "Café Plan ☕",
        "phase": "halted",
        "event_type": "guard_triggered",
        "summary": NOTIFICATION.summary,
    }
    assert "Authorization" not in sent.headers


def test_a_token_is_sent_as_a_bearer_authorization() -> None:
    with CaptureServer() as server:
        send_webhook(_channel(server.url, TOKEN), NOTIFICATION, timeout=2)
    assert server.requests[0].headers["Authorization"] == f"Bearer {TOKEN}"


def test_an_http_error_keeps_its_status_and_shows_only_the_host() -> None:
    with CaptureServer() as server:
        server.answer(500, "upstream exploded")
        with pytest.raises(ServiceError) as raised:
            send_webhook(_channel(server.url, TOKEN), NOTIFICATION, timeout=2)
    assert raised.value.status == 500
    assert str(raised.value) == f"POST {server.url}/…: HTTP 500: upstream exploded"


def test_an_error_page_that_echoes_the_secret_path_is_redacted() -> None:
    with CaptureServer() as server:
        server.answer(404, f"Cannot POST {SECRET_PATH}?{SECRET_QUERY}")
        with pytest.raises(ServiceError) as raised:
            send_webhook(_channel(server.url), NOTIFICATION, timeout=2)
    assert raised.value.status == 404
    assert "Cannot POST /…" in str(raised.value)
    _assert_redacted(str(raised.value))


def test_a_refused_connection_shows_only_the_host() -> None:
    url = refused_url()
    with pytest.raises(ServiceError) as raised:
        send_webhook(_channel(url), NOTIFICATION, timeout=2)
    assert raised.value.status is None
    assert str(raised.value).startswith(f"POST {url}/…: ")
    _assert_redacted(str(raised.value))


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://hooks.slack.com/services/T/B/X", "https://hooks.slack.com/…"),
        ("https://discord.com/api/webhooks/1/abc?wait=true", "https://discord.com/…"),
        ("http://user:pw@Example.com:8080/hook", "http://example.com:8080/…"),
        ("http://[::1]:9000/hook", "http://[::1]:9000/…"),
        ("https://example.com", "https://example.com/…"),
    ],
)
def test_public_url_keeps_only_scheme_host_and_port(url: str, shown: str) -> None:
    assert public_url(url) == shown


def test_check_opens_a_connection_without_sending_a_request() -> None:
    with CaptureServer() as server:
        assert check_webhook(_channel(server.url, TOKEN), timeout=2) is None
    assert server.requests == []


def test_check_reports_a_refused_connection_without_the_path() -> None:
    url = refused_url()
    problem = check_webhook(_channel(url), timeout=2)
    assert problem is not None and problem.startswith(f"cannot connect to {url}/…: ")
    _assert_redacted(problem)
