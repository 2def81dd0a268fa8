"""Notification channels: ntfy and a generic JSON webhook, behind one `Notifier`.

`ntfy` and `webhook` each talk to one kind of service; `channels` dispatches on the configured
channel type and is what entry points install (`ChannelNotifier`) and `doctor` uses
(`describe`, `check`, `send_test`). Imports `config`, `errors`, `core` and `adapters.http` only.
"""

from __future__ import annotations

from thoughtforge.adapters.notify.channels import ChannelNotifier, check, describe, send_test
from thoughtforge.adapters.notify.ntfy import send_ntfy
from thoughtforge.adapters.notify.webhook import public_url, send_webhook

__all__ = [
    "ChannelNotifier",
    "check",
    "describe",
    "public_url",
    "send_ntfy",
    "send_test",
    "send_webhook",
]
