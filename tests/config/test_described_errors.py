from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from thoughtforge.config import (
    NtfyChannel,
    WebhookChannel,
    load_config,
)
from thoughtforge.errors import ConfigError


def test_bad_value_names_key_value_and_expected_form(
    write_config: Callable[..., Path],
) -> None:
    path = write_config(polish={"max_iterations": "many"})
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert "polish.max_iterations" in message
    assert "'many'" in message
    assert "valid integer" in message


def test_out_of_range_and_unknown_keys_are_named(write_config: Callable[..., Path]) -> None:
    path = write_config(polish={"stagnation_limit": 1, "max_iteration": 9})
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "polish.stagnation_limit" in str(caught.value)
    assert "polish.max_iteration: unknown key" in str(caught.value)


def test_default_agent_must_be_defined(write_config: Callable[..., Path]) -> None:
    path = write_config(agents={"default": "nobody"})
    with pytest.raises(ConfigError, match=r"agents\.default is 'nobody'"):
        load_config(path)


# --- Channel and board URLs, channel types -------------------------------------------------------

TOKEN = "sekrit-t0ken-never-shown"


def _config_error(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    return str(caught.value)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("ftp://x", "an http(s) URL with a host"),
        ("http://", "an http(s) URL with a host"),
        ("ntfy.sh", "an http(s) URL with a host"),
        ("http://host:notaport", "an http(s) URL whose port is a number"),
    ],
)
def test_a_malformed_channel_url_names_the_key_the_value_and_the_expected_form(
    write_config: Callable[..., Path], url: str, expected: str
) -> None:
    path = write_config(notifications={"channels": [{"url": url, "topic": "tf-alerts"}]})
    message = _config_error(path)
    assert f"  notifications.channels.0.ntfy.url: got '{url}'; expected {expected}" in message
    assert message.startswith(f"{path} has 1 invalid setting(s):")
    assert "value error" not in message.lower()  # pydantic's wording, not the user's


def test_a_malformed_webhook_url_names_the_webhook_key(write_config: Callable[..., Path]) -> None:
    channel = {"type": "webhook", "url": "hooks.example.com/abc"}
    message = _config_error(write_config(notifications={"channels": [{"x": 1}, channel]}))
    assert "notifications.channels.1.webhook.url: got 'hooks.example.com/abc'" in message


@pytest.mark.parametrize(
    ("channel", "key"),
    [
        ({"url": f"https://alerts:{TOKEN}@ntfy.example.com", "topic": "tf"}, "0.ntfy"),
        ({"type": "webhook", "url": f"https://{TOKEN}@hooks.example.com/h"}, "0.webhook"),
    ],
)
def test_a_secret_in_a_channel_url_is_refused_at_start_and_never_shown(
    write_config: Callable[..., Path], channel: dict[str, str], key: str
) -> None:
    """Before, `https://user:password@host` was accepted, never worked, and the password was
    printed in thoughtforge.log, the run output and `doctor`."""
    message = _config_error(write_config(notifications={"channels": [channel]}))
    assert f"notifications.channels.{key}.url: got 'https://***@" in message
    assert "without a user or password in it (put the secret in `token`)" in message
    assert TOKEN not in message


def test_an_unknown_channel_type_names_it_and_the_known_types(
    write_config: Callable[..., Path],
) -> None:
    channel = {"type": "slack", "url": "https://hooks.slack.com/services/T0"}
    message = _config_error(write_config(notifications={"channels": [channel]}))
    assert "notifications.channels.0:" in message
    assert message.endswith(
        "notifications.channels.0: got a section of type 'slack'; "
        "expected a channel type: ntfy or webhook"
    )


def test_an_unknown_channel_type_shows_neither_its_token_nor_internals(
    write_config: Callable[..., Path],
) -> None:
    channel = {"type": "slack", "url": "https://hooks.slack.com/services/T0", "token": TOKEN}
    message = _config_error(write_config(notifications={"channels": [channel]}))
    assert TOKEN not in message
    assert "type_of" not in message.split("\n", 1)[1]


def test_a_channel_without_a_type_is_ntfy(write_config: Callable[..., Path]) -> None:
    channels = [{"topic": "tf-alerts"}, {"type": "webhook", "url": "https://example.com/h/"}]
    config = load_config(write_config(notifications={"channels": channels}))
    ntfy, webhook = config.notifications.channels
    assert isinstance(ntfy, NtfyChannel) and ntfy.url == "https://ntfy.sh"
    assert isinstance(webhook, WebhookChannel) and webhook.url == "https://example.com/h"


def test_a_channel_without_a_type_and_without_a_topic_asks_for_the_topic(
    write_config: Callable[..., Path],
) -> None:
    channel = {"url": "https://hooks.example.com/abc"}
    message = _config_error(write_config(notifications={"channels": [channel]}))
    assert "notifications.channels.0.ntfy.topic: required key is missing" in message


def test_a_vibekanban_url_that_is_not_a_url_is_a_config_error(
    write_config: Callable[..., Path],
) -> None:
    message = _config_error(write_config(vibekanban={"url": "localhost:3000"}))
    assert "vibekanban.url: got 'localhost:3000'; expected an http(s) URL with a host" in message


def test_the_vibekanban_url_is_optional_and_loses_a_trailing_slash(
    write_config: Callable[..., Path],
) -> None:
    assert load_config(write_config()).vibekanban.url is None
    config = load_config(write_config(vibekanban={"url": "http://127.0.0.1:3000/"}))
    assert config.vibekanban.url == "http://127.0.0.1:3000"


@pytest.mark.parametrize("token", [[TOKEN], {"value": TOKEN}, 12345678901])
def test_a_rejected_webhook_token_never_appears_in_the_error(
    write_config: Callable[..., Path], token: object
) -> None:
    channel = {"type": "webhook", "url": "https://hooks.example.com/abc", "token": token}
    message = _config_error(write_config(notifications={"channels": [channel]}))
    assert "notifications.channels.0.webhook.token: got ***" in message
    assert TOKEN not in message and "12345678901" not in message


def test_a_rejected_url_is_shown_without_its_path(write_config: Callable[..., Path]) -> None:
    channel = {"type": "webhook", "url": "http://hooks.example.com:notaport/s3cr3t/path"}
    message = _config_error(write_config(notifications={"channels": [channel]}))
    assert "s3cr3t" not in message
    assert "got 'http://hooks.example.com:notaport/…'" in message


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ({"test_timeout_seconds": 0}, "code.test_timeout_seconds: got 0; expected input should be"),
        ({"max_step_attempts": 0}, "code.max_step_attempts: got 0; expected input should be"),
        (
            {"test_commands": {"python": "pytest -q"}},
            "code.test_commands.python: got 'pytest -q'; expected a command as a non-empty list "
            'of words, like ["make", "test"]',
        ),
        (
            {"test_commands": {"python": []}},
            "code.test_commands.python: got []; expected a command as a non-empty list",
        ),
        (
            {"test_commands": {"python": ["pytest", ""]}},
            "code.test_commands.python: got ['pytest', '']; expected a command",
        ),
        (
            {"test_commands": {"Ruby": ["rake", "test"]}},
            "code.test_commands.Ruby.[key]: got 'Ruby'; expected a lower-case language name",
        ),
    ],
)
def test_a_bad_code_setting_names_the_key_and_the_expected_form(
    write_config: Callable[..., Path], code: dict[str, Any], expected: str
) -> None:
    message = _config_error(write_config(code=code))
    assert expected in message
    assert "value error" not in message.lower()


@pytest.mark.parametrize(
    ("connectors", "expected"),
    [
        ({"notion": {"token": ["secret_abc123"]}}, "connectors.notion.token: got ***"),
        ({"notion": {"base_url": "ftp://x"}}, "connectors.notion.base_url: got 'ftp://x'"),
        ({"google_drive": {"timeout_seconds": "soon"}}, "google_drive.timeout_seconds: got 'soon'"),
        ({"google_drive": {"default_documents": "one"}}, "google_drive.default_documents"),
    ],
)
def test_connector_settings_of_the_wrong_type_are_named_without_the_token(
    write_config: Callable[..., Path], connectors: dict[str, Any], expected: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(write_config(connectors=connectors))
    assert expected in str(caught.value)
    assert "secret_abc123" not in str(caught.value)
