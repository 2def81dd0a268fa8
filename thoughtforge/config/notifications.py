"""Where a transition's notification goes: ntfy or a webhook, each URL checked at start-up and
its token kept secret."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Discriminator, Field, SecretStr, Tag

from thoughtforge.config.section import Section, type_or
from thoughtforge.config.urls import HttpUrl


class NtfyChannel(Section):
    """An ntfy server: the summary is POSTed to `<url>/<topic>`."""

    type: Literal["ntfy"] = "ntfy"
    url: HttpUrl = "https://ntfy.sh"
    topic: str = Field(min_length=1, pattern=r"^[-_A-Za-z0-9]{1,64}$")
    token: SecretStr | None = None


class WebhookChannel(Section):
    """Any HTTP endpoint: the notification is POSTed as JSON."""

    type: Literal["webhook"]
    url: HttpUrl
    token: SecretStr | None = None


NotificationChannel = Annotated[
    Annotated[NtfyChannel, Tag("ntfy")] | Annotated[WebhookChannel, Tag("webhook")],
    Discriminator(
        type_or("ntfy"),
        custom_error_type="channel_type",
        custom_error_message="a channel type: ntfy or webhook",
    ),
]


class NotificationsConfig(Section):
    enabled: bool = False
    timeout_seconds: float = Field(3, gt=0, le=30)
    channels: list[NotificationChannel] = []
