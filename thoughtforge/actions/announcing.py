"""A door's process announces each transition it makes (a command's, a page's, an MCP tool's) on
the board and the notification channels, as its config says; a flow run installs the same for
its own (`flows.runtime.events`)."""

from __future__ import annotations

from pathlib import Path

from thoughtforge.adapters.announce import announce_transitions
from thoughtforge.config import Config


def announce_from_this_process(config_file: Path, config: Config) -> None:
    """From now on, every transition in this process updates its card and notifies; called
    once, when the door has loaded its config."""
    announce_transitions(config_file, config)
