"""Notion pages and Google Drive documents pulled into a project's resources/ as Markdown when a
person asks (`thoughtforge pull`); a source pulled before is refreshed in place. Phase 1 pulls
the links a brain dump names by itself (`flows.intake`)."""

from __future__ import annotations

from thoughtforge.config import Config
from thoughtforge.connectors import PullReport, enabled_connectors, pull_sources
from thoughtforge.core.project import Project


def pull(config: Config, project: Project, urls: list[str]) -> PullReport:
    """What was written, and a note for each source not pulled (a connector off, a bad link)."""
    return pull_sources(project, enabled_connectors(config), urls, explicit=True)
