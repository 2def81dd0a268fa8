"""The services ThoughtForge talks to or serves: the Vibe Kanban board, the Prefect server and
its database, the workbench."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError

from thoughtforge.config.section import Section
from thoughtforge.config.urls import HttpUrl


class VibeKanbanConfig(Section):
    """The board. Without `url`, the port a local Vibe Kanban wrote to its port file is used.

    `code_execution` runs code mode's build and fix steps as Vibe Kanban task attempts with
    `executor_profile` (`EXECUTOR` or `EXECUTOR:VARIANT`, as Vibe Kanban's profiles name them)
    instead of calling the coding agent directly; it does not need `enabled`."""

    enabled: bool = False
    url: HttpUrl | None = None
    project_name: str = Field("ThoughtForge", min_length=1)
    timeout_seconds: float = Field(2, gt=0, le=30)
    code_execution: bool = False
    executor_profile: str = Field("CLAUDE_CODE", pattern=r"^[A-Z][A-Z0-9_]*(:[A-Z][A-Z0-9_]*)?$")


class ServerConfig(Section):
    """Where the Prefect server that ThoughtForge starts or talks to listens, and the database it
    keeps runs in: SQLite in the Prefect home unless `database_url` names PostgreSQL (for several
    machines), whose password comes from `THOUGHTFORGE_DATABASE_PASSWORD`, never this file."""

    host: str = "127.0.0.1"
    port: int = Field(4200, ge=1, le=65535)
    temporary_port: int | None = Field(None, ge=1, le=65535)
    """The port of the server a command starts for itself when none answers (a firewall or a
    tunnel that needs it known); none: any free port."""
    database_url: str | None = None

    @field_validator("database_url")
    @classmethod
    def _postgresql_without_password(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme != "postgresql+asyncpg" or not parts.hostname:
            raise PydanticCustomError(
                "database_url",
                "a postgresql+asyncpg://user@host:port/database URL (leave it out for SQLite)",
            )
        if parts.password is not None or "password" in parse_qs(parts.query):
            raise PydanticCustomError(
                "database_url",
                "a URL without its password: put it in the environment variable "
                "THOUGHTFORGE_DATABASE_PASSWORD",
            )
        return value


class WebConfig(Section):
    """The workbench (`thoughtforge web`, started by `up`). Loopback by default: bound elsewhere
    it has no authentication. `allowed_hosts` are extra names the page may be reached by (the
    `Host` header is checked against DNS rebinding)."""

    host: str = "127.0.0.1"
    port: int = Field(8765, ge=1, le=65535)
    allowed_hosts: list[str] = []
