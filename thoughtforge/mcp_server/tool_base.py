"""What every group of MCP tools stands on: the config file they are bound to (followed as it
changes, as the workbench follows it) and a project by its id."""

from __future__ import annotations

from pathlib import Path

from thoughtforge.actions.project_page import project_named
from thoughtforge.config import Config, LiveConfig
from thoughtforge.core.project import Project


class ToolBase:
    """The config the tools read, current at each call."""

    def __init__(self, config_file: Path, config: Config) -> None:
        self.config_file = config_file
        self.live_config = LiveConfig(config_file, config)

    @property
    def config(self) -> Config:
        return self.live_config.current()

    def project(self, project_id: str) -> Project:
        return project_named(self.config, project_id)
