"""The database the Prefect server `up` starts keeps its runs in.

SQLite in the Prefect home is the default: nothing to set up, one machine. PostgreSQL
(`server.database_url`) is for several machines sharing one server. Its password never sits in
the config file, which several machines read: it comes from `THOUGHTFORGE_DATABASE_PASSWORD`, goes
into the server's own environment only, and is taken out of every other process `up` starts (the
workers, their runs and the agents they call never need it).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

from thoughtforge.config import Config
from thoughtforge.errors import ServiceError

PASSWORD_ENV = "THOUGHTFORGE_DATABASE_PASSWORD"
CONNECT_SECONDS = 5.0


def server_database_env(config: Config) -> dict[str, str]:
    """What the server process needs to use the configured database (nothing for SQLite)."""
    url = config.server.database_url
    if url is None:
        return {}
    return {"PREFECT_SERVER_DATABASE_CONNECTION_URL": _with_password(url, _password())}


def without_password(env: dict[str, str]) -> dict[str, str]:
    """`env` for a process that has no business with the database."""
    return {name: value for name, value in env.items() if name != PASSWORD_ENV}


def describe(config: Config) -> str:
    """Which database, in words safe to print (never the password)."""
    url = config.server.database_url
    if url is None:
        home = os.environ.get("PREFECT_HOME") or str(Path.home() / ".prefect")
        return f"SQLite in {home}/prefect.db (the default; one machine)"
    parts = urlsplit(url)
    user = f"{parts.username}@" if parts.username else ""
    password = " (password from $" + PASSWORD_ENV + ")" if _password() else ""
    return f"PostgreSQL {user}{parts.hostname}:{parts.port or 5432}{parts.path}{password}"


def check_reachable(config: Config) -> None:
    """Connect and ask one question; a `ServiceError` saying why not (never with the password)."""
    url = config.server.database_url
    if url is None:
        return
    import asyncpg

    password = _password()
    dsn = url.replace("postgresql+asyncpg://", "postgresql://", 1)

    async def ask() -> None:
        connection = await asyncpg.connect(dsn, password=password, timeout=CONNECT_SECONDS)
        try:
            await connection.fetchval("SELECT 1")
        finally:
            await connection.close()

    try:
        asyncio.run(ask())
    except (TimeoutError, OSError, asyncpg.PostgresError) as exc:
        reason = str(exc) or type(exc).__name__
        if password:
            reason = reason.replace(password, "***")
        raise ServiceError(f"{describe(config)} cannot be reached: {reason}") from None


def _password() -> str | None:
    return os.environ.get(PASSWORD_ENV) or None


def _with_password(url: str, password: str | None) -> str:
    if password is None:
        return url
    parts = urlsplit(url)
    user, _, host = parts.netloc.rpartition("@")
    netloc = f"{user}:{quote(password, safe='')}@{host}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
