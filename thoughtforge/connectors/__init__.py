"""Connectors pull Notion pages and Google Drive documents into a project's `resources/` as
Markdown (`document`: what one returns; `writing`: the files; `sources`: what Phase 1 pulls;
`pull`: the run over a list of links). Each connector is a module with one class; only the
enabled ones are imported, so a project without them never loads their client libraries.

Imports `core`, `phases.resources` and the vocabulary; never Prefect (the flows wrap each pull
in a task with retries).
"""

from __future__ import annotations

from thoughtforge.config import Config
from thoughtforge.connectors.document import Connector, Document, Fetched
from thoughtforge.connectors.pull import PullReport, pull_sources


def enabled_connectors(config: Config) -> list[Connector]:
    """The connectors `config.yaml` switches on, in a fixed order."""
    found: list[Connector] = []
    if config.connectors.notion.enabled:
        from thoughtforge.connectors.notion import NotionConnector

        found.append(NotionConnector(config.connectors.notion))
    if config.connectors.google_drive.enabled:
        from thoughtforge.connectors.google_drive import GoogleDriveConnector

        found.append(GoogleDriveConnector(config.connectors.google_drive))
    return found


__all__ = [
    "Connector",
    "Document",
    "Fetched",
    "PullReport",
    "enabled_connectors",
    "pull_sources",
]
