"""A `thoughtforge up` stack per test: its own port, Prefect home and projects folder."""

from __future__ import annotations

import fcntl
import os
import shlex
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO_ROOT, config_data
from tests.flows.test_polish_flow import _wait_for
from thoughtforge.config import state_dir
from thoughtforge.core.processes import live_processes
from thoughtforge.core.waiting import current_wait
from thoughtforge.stack.api import PrefectApi

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Stack:
    def __init__(self, tmp_path: Path, **sections: Any) -> None:
        self.port = free_port()
        self.web_port = free_port()
        self.config = tmp_path / "config.yaml"
        sections.setdefault("human", {"hold_seconds": 0})  # suspend at once, unless a test holds
        data = config_data(
            tmp_path,
            server={"host": "127.0.0.1", "port": self.port},
            web={"port": self.web_port},
            **sections,
        )
        self.config.write_text(yaml.safe_dump(data))
        self.projects = tmp_path / "projects"
        self.api = f"http://127.0.0.1:{self.port}/api"
        self.web = f"http://127.0.0.1:{self.web_port}"
        self.up_output = ""
        self.env = {
            "PATH": f"{BIN}:/usr/bin:/bin",
            "HOME": str(tmp_path),
            "PREFECT_HOME": str(tmp_path / ".prefect"),
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "COLUMNS": "200",
            "PYTHONPATH": str(REPO_ROOT),  # this checkout's code, not an installed copy's
        }

    def tf(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """`thoughtforge` with this stack's config, in its environment or in `env`."""
        return subprocess.run(
            [str(BIN / "thoughtforge"), "--config", str(self.config), *args],
            env=env or self.env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    def prefect(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "prefect"), *args],
            env={**self.env, "PREFECT_API_URL": self.api},
            capture_output=True,
            text=True,
            timeout=300,
        )

    def project(self) -> Path:
        [project] = [p for p in self.projects.iterdir() if not p.name.startswith(".")]
        return project


@contextmanager
def running(stack: Stack) -> Iterator[Stack]:
    """`thoughtforge up` for the block, then `down`, which must leave nothing of ours behind."""
    started = stack.tf("up")
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        assert f"UI: http://127.0.0.1:{stack.port}" in started.stdout
        stack.up_output = started.stdout
        yield stack
    finally:
        stack.tf("down")
    assert live_processes(state_dir(stack.config)) == [], "down left a process of ours behind"


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    with running(Stack(tmp_path)) as stack:
        yield stack


def wait_for(condition: Callable[[], bool], what: str, seconds: float = 180) -> None:
    """The flows tests' wait, with room for a worker to start a run (about 10 s each time)."""
    _wait_for(condition, what, seconds)


def suspended_at(stack: Stack, kind: str, state_name: str = "Suspended") -> Callable[[], bool]:
    """The run waits with form `kind`, in `state_name` (Paused: holding its process)."""

    def check() -> bool:
        if not stack.projects.exists() or not any(
            not p.name.startswith(".") for p in stack.projects.iterdir()
        ):
            return False
        waiting = current_wait(stack.project())
        if waiting is None or waiting.kind != kind:
            return False
        api = PrefectApi(stack.api)
        run = api.waiting_run(stack.project().name)
        return run is not None and run.state_name == state_name and api.form_published(run)

    return check


def asked_again(stack: Stack, old_key: str) -> Callable[[], bool]:
    """The run took the answer and suspended at a new question of the same kind."""

    def check() -> bool:
        waiting = current_wait(stack.project())
        return (
            waiting is not None and waiting.key != old_key and suspended_at(stack, waiting.kind)()
        )

    return check


INSTALL_SECONDS = 900
INSTALLED_TIMEOUT = 2 * INSTALL_SECONDS + 600
"""A test of the install: the install itself (its first test builds it) and the test's runs."""


def run_ok(argv: list[str], **options: object) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(argv, capture_output=True, text=True, check=False, **options)
    assert result.returncode == 0, f"{shlex.join(argv)}:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A venv holding the wheel built from this checkout (and its dependencies), nothing else: a
    tool install (`pipx`, `uv tool`), built once for the session's tests of it — once for all
    of pytest-xdist's workers too (they share the base temp folder's parent; the first to take
    the lock builds it)."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # this run's, above each worker's own
        shared = shared.parent
    with (shared / "tool.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        venv = shared / "tool" / "venv"
        if not (venv / "bin" / "thoughtforge").exists():
            _install(shared / "tool")
    yield venv


def _install(root: Path) -> None:
    shutil.rmtree(root, ignore_errors=True)  # a build an earlier worker did not finish
    root.mkdir()
    wheels = root / "wheels"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    run_ok([*pip, "wheel", str(REPO), "--no-deps", "-w", str(wheels)], timeout=INSTALL_SECONDS)
    [wheel] = wheels.glob("thoughtforge-*.whl")
    venv = root / "venv"
    run_ok([sys.executable, "-m", "venv", str(venv)], timeout=120)
    install = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check"]
    run_ok([*install, "install", "--quiet", str(wheel)], timeout=INSTALL_SECONDS, cwd=root)
