"""The sources a brain dump may be pulled from: Notion pages and Google Drive documents."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr

from thoughtforge.config.section import Section
from thoughtforge.config.urls import HttpUrl


class NotionConfig(Section):
    """`base_url` points the client elsewhere (a proxy, or the tests' local server)."""

    enabled: bool = False
    token: SecretStr | None = None
    default_pages: list[str] = []
    base_url: HttpUrl | None = None
    timeout_seconds: float = Field(30, gt=0, le=600)


class GoogleDriveConfig(Section):
    """`credentials_path` is a service-account JSON key or an authorized-user token file (its
    own `token_uri` is used); `base_url` points the Drive API elsewhere (a proxy, or the tests'
    local server)."""

    enabled: bool = False
    credentials_path: Path | None = None
    default_documents: list[str] = []
    base_url: HttpUrl | None = None
    timeout_seconds: float = Field(30, gt=0, le=600)


class ConnectorsConfig(Section):
    notion: NotionConfig = NotionConfig()
    google_drive: GoogleDriveConfig = GoogleDriveConfig()
