from __future__ import annotations

import logging
import time

import pytest
from pydantic import SecretStr

from tests.capture_server import CaptureServer, refused_url
from thoughtforge.adapters.notify import ChannelNotifier, check, describe, send_test
from thoughtforge.config import Config, NotificationsConfig, NtfyChannel, WebhookChannel
from thoughtforge.core.creation import create_project
from thoughtforge.core.hooks import Notification, TransitionHooks
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import read_events
from thoughtforge.core.transition import transition
from thoughtforge.errors import ConfigError, ServiceError
from thoughtforge.models import Phase

TOKEN = "sekrit-t0ken-never-shown"
SECRET_PATH = "/hooks/xoxSecretPart"
NOTIFICATION = Notification(
    project_id="wedding-plan-1",
    project_name="Wedding Plan",
    phase="human_review",
    event_type="human_needed",
    summary="Project 'Wedding Plan' — now in human_review.",
)


def _ntfy(url: str, token: str | None = None) -> NtfyChannel:
    return NtfyChannel(url=url, topic="tf-alerts", token=SecretStr(token) if token else None)


def _webhook(url: str, token: str | None = None) -> WebhookChannel:
    secret = SecretStr(token) if token else None
    return WebhookChannel(type="webhook", url=f"{url}{SECRET_PATH}", token=secret)


def _notifier(*channels: NtfyChannel | WebhookChannel, timeout: float = 2) -> ChannelNotifier:
    settings = NotificationsConfig(enabled=True, timeout_seconds=timeout, channels=list(channels))
    return ChannelNotifier(lambda: settings)


@pytest.fixture
def project(config: Config) -> Project:
    return create_project(config)


def test_every_channel_gets_the_notification_once(project: Project) -> None:
    with CaptureServer() as ntfy, CaptureServer() as hook:
        _notifier(_ntfy(ntfy.url), _webhook(hook.url)).send(project, NOTIFICATION)
    assert [r.path for r in ntfy.requests] == ["/tf-alerts"]
    assert [r.json()["summary"] for r in hook.requests] == [NOTIFICATION.summary]


def test_a_failing_channel_does_not_stop_the_next_and_is_named(project: Project) -> None:
    with CaptureServer() as broken, CaptureServer() as ntfy:
        broken.answer(500, "boom")
        notifier = _notifier(_webhook(broken.url), _ntfy(refused_url()), _ntfy(ntfy.url))
        with pytest.raises(ServiceError) as raised:
            notifier.send(project, NOTIFICATION)
    assert len(broken.requests) == 1 and len(ntfy.requests) == 1
    message = str(raised.value)
    assert message.startswith("2 of 3 notification channel(s) failed: ")
    assert f"webhook {broken.url}/… (POST {broken.url}/…: HTTP 500: boom)" in message
    assert "Connection refused" in message
    assert f"{ntfy.url}/tf-alerts" not in message


def test_a_channel_slower_than_the_timeout_does_not_stop_the_next(project: Project) -> None:
    with CaptureServer() as slow, CaptureServer() as ntfy:
        slow.answer(delay=30)
        started = time.monotonic()
        with pytest.raises(ServiceError, match="timed out"):
            _notifier(_webhook(slow.url), _ntfy(ntfy.url), timeout=0.3).send(project, NOTIFICATION)
        assert time.monotonic() - started < 10
        assert len(ntfy.requests) == 1


def test_nothing_is_sent_while_notifications_are_disabled(project: Project) -> None:
    with CaptureServer() as server:
        settings = NotificationsConfig(enabled=False, channels=[_ntfy(server.url)])
        ChannelNotifier(lambda: settings).send(project, NOTIFICATION)
    assert server.requests == []


def test_enabled_without_channels_sends_nothing_and_succeeds(project: Project) -> None:
    _notifier().send(project, NOTIFICATION)


def test_the_settings_are_read_at_every_send(project: Project) -> None:
    current = [NotificationsConfig(enabled=False)]
    notifier = ChannelNotifier(lambda: current[0])
    with CaptureServer() as server:
        notifier.send(project, NOTIFICATION)
        current[0] = NotificationsConfig(enabled=True, channels=[_ntfy(server.url)])
        notifier.send(project, NOTIFICATION)
    assert len(server.requests) == 1


def test_unreadable_settings_are_a_service_error(project: Project) -> None:
    def broken() -> NotificationsConfig:
        raise ConfigError("config.yaml is not valid YAML")

    with pytest.raises(ServiceError, match="is not valid YAML"):
        ChannelNotifier(broken).send(project, NOTIFICATION)


def test_tokens_and_webhook_paths_never_reach_errors_or_logs(
    project: Project, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    echo = f"denied: Authorization: Bearer {TOKEN}"
    with CaptureServer() as ntfy, CaptureServer() as hook:
        ntfy.answer(401, echo)
        hook.answer(401, f"{echo} for POST {SECRET_PATH}")
        notifier = _notifier(_ntfy(ntfy.url, TOKEN), _webhook(hook.url, TOKEN))
        with pytest.raises(ServiceError) as raised:
            notifier.send(project, NOTIFICATION)
    assert ntfy.requests[0].headers["Authorization"] == f"Bearer {TOKEN}"
    assert "Bearer ***" in str(raised.value)
    for text in (str(raised.value), caplog.text):
        assert TOKEN not in text and "xoxSecretPart" not in text


def test_a_transition_logs_the_failure_without_secrets(
    project: Project, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with CaptureServer() as hook:
        hook.answer(500)
        hooks = TransitionHooks(notifier=_notifier(_webhook(hook.url, TOKEN)))
        transition(project, Phase.DISTILLING, hooks=hooks)
    assert hook.requests[0].json()["phase"] == "distilling"
    [failed] = [e for e in read_events(project.dir) if e["event"] == "hook_failed"]
    assert failed["hook"] == "notification" and f"webhook {hook.url}/…" in failed["error"]
    assert f"webhook {hook.url}/…" in caplog.text
    for text in (failed["error"], caplog.text):
        assert TOKEN not in text and "xoxSecretPart" not in text


def test_describe_shows_neither_a_token_nor_a_webhook_path() -> None:
    ntfy = _ntfy("https://ntfy.sh", TOKEN)
    webhook = _webhook("https://hooks.example.com", TOKEN)
    assert describe(ntfy) == "ntfy https://ntfy.sh/tf-alerts"
    assert describe(webhook) == "webhook https://hooks.example.com/…"


def test_check_dispatches_on_the_channel_type() -> None:
    with CaptureServer() as server:
        server.answer(200, {"healthy": True})
        assert check(_ntfy(server.url), timeout=2) is None
        assert check(_webhook(server.url), timeout=2) is None
    assert [r.path for r in server.requests] == ["/v1/health"]
    url = refused_url()
    assert f"cannot connect to {url}/…" in (check(_webhook(url), timeout=2) or "")


def test_send_test_sends_exactly_one_test_notification() -> None:
    with CaptureServer() as ntfy, CaptureServer() as hook:
        send_test(_ntfy(ntfy.url), timeout=2)
        send_test(_webhook(hook.url), timeout=2)
    [pushed] = ntfy.requests
    assert "thoughtforge-doctor" in pushed.headers["Title"]
    assert "ThoughtForge test notification" in pushed.body.decode("utf-8")
    [posted] = hook.requests
    assert posted.json()["project_id"] == "thoughtforge-doctor"
    assert posted.json()["event_type"] == "milestone_complete"


def test_a_failed_send_test_is_a_service_error_without_the_token() -> None:
    with CaptureServer() as server:
        server.answer(403, f"bad token {TOKEN}")
        with pytest.raises(ServiceError) as raised:
            send_test(_ntfy(server.url, TOKEN), timeout=2)
    assert raised.value.status == 403
    assert TOKEN not in str(raised.value) and "bad token ***" in str(raised.value)
