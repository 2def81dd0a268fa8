"""The server's database: SQLite by default, PostgreSQL from `server.database_url`, its password
only from the environment, and only in the server's own process. A real throwaway cluster."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.postgresql import PASSWORD, Cluster, throwaway_cluster
from thoughtforge.cli.doctor import run_checks
from thoughtforge.config import load_config
from thoughtforge.errors import ConfigError, ServiceError
from thoughtforge.stack.database import PASSWORD_ENV, check_reachable, describe
from thoughtforge.stack.local_server import prefect_env, server_command


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with throwaway_cluster() as cluster:
        yield cluster


@pytest.mark.parametrize(
    "url",
    ["postgresql+asyncpg://tf:hunter2@db/prefect", "postgresql+asyncpg://tf@db/p?password=hunter2"],
)
def test_a_password_in_the_url_is_refused_without_repeating_it(
    write_config: Callable[..., Path], url: str
) -> None:
    path = write_config(server={"database_url": url})
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert "server.database_url" in str(raised.value)
    assert PASSWORD_ENV in str(raised.value)
    assert "hunter2" not in str(raised.value)


@pytest.mark.parametrize(
    "url", ["sqlite+aiosqlite:///x.db", "postgresql://tf@db/prefect", "postgresql+asyncpg:///p"]
)
def test_only_a_postgresql_asyncpg_url_with_a_host_is_taken(
    write_config: Callable[..., Path], url: str
) -> None:
    with pytest.raises(ConfigError, match="postgresql\\+asyncpg://user@host:port/database"):
        load_config(write_config(server={"database_url": url}))


def test_the_server_alone_gets_the_password_quoted_into_its_url(
    write_config: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(PASSWORD_ENV, PASSWORD)
    url = "postgresql+asyncpg://thoughtforge@db.example:5433/prefect"
    config = load_config(write_config(server={"database_url": url}))
    _, env = server_command(config)
    given = urlsplit(env["PREFECT_SERVER_DATABASE_CONNECTION_URL"])
    assert unquote(given.password or "") == PASSWORD
    assert (given.hostname, given.port, given.path) == ("db.example", 5433, "/prefect")
    assert PASSWORD_ENV not in env
    others = prefect_env("http://127.0.0.1:4200/api", tmp_path / "config.yaml")
    assert PASSWORD not in "".join(others.values())
    assert PASSWORD not in describe(config)


def test_without_a_url_the_server_keeps_prefects_sqlite(
    write_config: Callable[..., Path],
) -> None:
    config = load_config(write_config())
    _, env = server_command(config)
    assert "PREFECT_SERVER_DATABASE_CONNECTION_URL" not in env
    assert describe(config).startswith("SQLite")


def test_doctor_says_which_database_and_that_it_answers(
    cluster: Cluster, write_config: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PASSWORD_ENV, PASSWORD)
    checks = run_checks(write_config(server={"database_url": cluster.url}))
    [database] = [check for check in checks if check.name == "database"]
    assert database.outcome == "ok"
    assert database.detail.startswith(f"PostgreSQL thoughtforge@127.0.0.1:{cluster.port}/prefect")
    assert database.detail.endswith("is reachable")


def test_a_wrong_password_or_no_database_is_a_clear_failure_without_the_password(
    cluster: Cluster, write_config: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PASSWORD_ENV, "not-the-password")
    config = load_config(write_config(server={"database_url": cluster.url}))
    with pytest.raises(ServiceError) as wrong:
        check_reachable(config)
    assert "password authentication failed" in str(wrong.value)
    assert "not-the-password" not in str(wrong.value)
    closed = cluster.url.replace(str(cluster.port), "9")
    config = load_config(write_config(server={"database_url": closed}))
    with pytest.raises(ServiceError, match=r"127\.0\.0\.1:9/prefect .*cannot be reached"):
        check_reachable(config)
