"""A throwaway PostgreSQL cluster for a test: Debian's `initdb`/`pg_ctl` in a temp folder, on a
free port, with a password (scram), torn down after. Skips, saying why, without PostgreSQL."""

from __future__ import annotations

import asyncio
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.vibe_kanban import free_port

USER = "thoughtforge"
PASSWORD = "s3cret@tf:/ x"
"""Characters a URL must quote: the password reaches the server intact only if quoted right."""


@dataclass(frozen=True)
class Cluster:
    port: int
    url: str
    """`postgresql+asyncpg://thoughtforge@127.0.0.1:PORT/prefect`, without the password."""


def _binary(name: str) -> str | None:
    """On PATH, or where Debian keeps each version's programs (the newest)."""
    versions = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    return shutil.which(name) or (str(versions[-1]) if versions else None)


def _as_owner() -> tuple[list[str], int | None]:
    """PostgreSQL refuses to run as root: then it runs as the `postgres` (or `nobody`) user."""
    if os.getuid() != 0:
        return [], None
    for name in ("postgres", "nobody"):
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            continue
        prefix = ["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}"]
        return [*prefix, "--clear-groups"], entry.pw_uid
    pytest.skip("running as root with no `postgres` or `nobody` user to run PostgreSQL as")


@contextmanager
def throwaway_cluster() -> Iterator[Cluster]:
    initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
    if initdb is None or pg_ctl is None:
        pytest.skip("PostgreSQL is not installed (`.ci/run` installs Debian's postgresql)")
    prefix, owner = _as_owner()
    folder = Path(tempfile.mkdtemp(prefix="tf-postgresql-"))
    if owner is not None:
        os.chown(folder, owner, -1)
    (folder / "password").write_text(PASSWORD)
    port = free_port()
    data = folder / "data"
    password = ["--pwfile", str(folder / "password"), "-A", "scram-sha-256"]
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    log = str(folder / "log")
    try:
        subprocess.run(
            [*prefix, initdb, "-D", str(data), "-U", USER, *password, "--no-sync"],
            check=True,
            capture_output=True,
        )
        subprocess.run(
            [*prefix, pg_ctl, "-D", str(data), "-o", options, "-l", log, "-w", "start"],
            check=True,
            capture_output=True,
        )
        create_database(port, "prefect")
        yield Cluster(port=port, url=f"postgresql+asyncpg://{USER}@127.0.0.1:{port}/prefect")
    finally:
        subprocess.run(
            [*prefix, pg_ctl, "-D", str(data), "-m", "immediate", "stop"], capture_output=True
        )
        shutil.rmtree(folder, ignore_errors=True)


def create_database(port: int, name: str) -> None:
    """A new, empty database on the cluster at `port`."""
    import asyncpg

    async def create() -> None:
        connection = await asyncpg.connect(
            host="127.0.0.1", port=port, user=USER, password=PASSWORD, database="postgres"
        )
        try:
            await connection.execute(f'CREATE DATABASE "{name}"')
        finally:
            await connection.close()

    asyncio.run(create())
