"""The server `up` runs: a transaction that reads and then writes, while another connection
writes in between, must wait for it and succeed, not fail with "database is locked" (which the
API answers with a 503 and a client's two-second retry). A real SQLite file in WAL mode, through
Prefect's own database configuration."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from prefect.server.database.configurations import AioSqliteConfiguration
from sqlalchemy import text

from thoughtforge.flows.runtime import prefect_server


async def _read_then_write(database: Path) -> None:
    """Read in a transaction, let another connection try to write, then write."""
    configuration = AioSqliteConfiguration(connection_url=f"sqlite+aiosqlite:///{database}")
    engine = await configuration.engine()
    try:
        session = await configuration.session(engine)
        async with session, configuration.begin_transaction(session):
            await session.execute(text("SELECT count(*) FROM runs"))
            _another_writer(database)
            await session.execute(text("INSERT INTO runs VALUES ('mine')"))
    finally:
        await engine.dispose()


def _another_writer(database: Path) -> None:
    """What the worker's heartbeat does meanwhile; it gives up after 0.2 s if it must wait."""
    other = sqlite3.connect(database, timeout=0.2)
    try:
        other.execute("INSERT INTO runs VALUES ('theirs')")
        other.commit()
    except sqlite3.OperationalError:
        pass
    finally:
        other.close()


@pytest.fixture
def database(tmp_path: Path) -> Path:
    path = tmp_path / "prefect.db"
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("CREATE TABLE runs (name TEXT)")
    return path


def _names(database: Path) -> list[str]:
    with sqlite3.connect(database) as connection:
        return [name for (name,) in connection.execute("SELECT name FROM runs")]


def test_prefects_own_deferred_transaction_fails_when_another_wrote_in_between(
    database: Path,
) -> None:
    """The failure the server's change removes, reproduced: the test would pass for nothing
    if this did not fail."""
    with pytest.raises(Exception, match="database is locked"):
        asyncio.run(_read_then_write(database))
    assert _names(database) == ["theirs"]


def test_the_servers_transactions_take_the_write_lock_when_they_begin(
    database: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    immediate = prefect_server.immediate(AioSqliteConfiguration.begin_transaction)
    monkeypatch.setattr(AioSqliteConfiguration, "begin_transaction", immediate)
    asyncio.run(_read_then_write(database))
    assert _names(database) == ["mine"]  # the other writer waited, then gave up by its timeout
