"""`config.yaml`: one pydantic model per section, validated once at start-up.

Unknown keys are rejected so a typo is reported rather than silently ignored. Relative paths are
resolved against the directory holding the config file, not the current directory.

The sections are declared per area (`agents`, `notifications`, `connectors`, `services`, `code`,
`polish`, `folders`, `limits`) and gathered in `model.Config`; `files` says where the file is,
`loading` reads it, `described_errors` says what a rejected setting was (never a secret), and
`live` re-reads the file when it changes. Callers import from here.
"""

from thoughtforge.config.agents import AgentsConfig, AgentSpec, CommandAgentSpec, OpenAIAgentSpec
from thoughtforge.config.code import CodeConfig, default_test_commands
from thoughtforge.config.connectors import GoogleDriveConfig, NotionConfig
from thoughtforge.config.files import (
    PACKAGED_EXAMPLE,
    config_path,
    state_dir,
    write_example,
    write_example_brain_dump,
)
from thoughtforge.config.live import LiveConfig
from thoughtforge.config.loading import load_config
from thoughtforge.config.model import Config
from thoughtforge.config.notifications import (
    NotificationChannel,
    NotificationsConfig,
    NtfyChannel,
    WebhookChannel,
)
from thoughtforge.config.polish import PolishConfig
from thoughtforge.config.services import VibeKanbanConfig

__all__ = [
    "PACKAGED_EXAMPLE",
    "AgentSpec",
    "AgentsConfig",
    "CodeConfig",
    "CommandAgentSpec",
    "Config",
    "GoogleDriveConfig",
    "LiveConfig",
    "NotificationChannel",
    "NotificationsConfig",
    "NotionConfig",
    "NtfyChannel",
    "OpenAIAgentSpec",
    "PolishConfig",
    "VibeKanbanConfig",
    "WebhookChannel",
    "config_path",
    "default_test_commands",
    "load_config",
    "state_dir",
    "write_example",
    "write_example_brain_dump",
]
