"""The real Vibe Kanban 0.0.71 server, started for the tests in temp dirs of its own.

`.ci/install-vibe-kanban` puts the binary in the cache (`$VIBE_KANBAN_BIN` names another one).
Each server gets its own data dir, temp dir (where it writes its port file) and home, a free port,
and an `xdg-open` that does nothing, so it never touches a developer's own Vibe Kanban.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

VERSION = "0.0.71"
INSTALL = Path(__file__).parents[1] / ".ci" / "install-vibe-kanban"
START_SECONDS = 30.0


def binary() -> Path | None:
    explicit = os.environ.get("VIBE_KANBAN_BIN")
    if explicit:
        return Path(explicit)
    cache = Path(os.environ.get("THOUGHTFORGE_CACHE", Path.home() / ".cache/thoughtforge"))
    path = cache / f"vibe-kanban-{VERSION}" / "vibe-kanban"
    return path if path.exists() else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class VibeKanban:
    """One running server; `url` is its base URL, `tmp` the temp dir holding its port file."""

    def __init__(self, root: Path, *, port: int | None = None) -> None:
        executable = binary()
        if executable is None:
            pytest.skip(f"Vibe Kanban {VERSION} is not installed: run {INSTALL}")
        self.root = root
        self.tmp = root / "tmp"
        shim = root / "bin"
        for folder in (self.tmp, root / "data", root / "home", shim):
            folder.mkdir(parents=True, exist_ok=True)
        (shim / "xdg-open").write_text("#!/bin/sh\nexit 0\n")
        (shim / "xdg-open").chmod(0o755)
        env = {
            **os.environ,
            "PATH": f"{shim}:{os.environ['PATH']}",
            "XDG_DATA_HOME": str(root / "data"),
            "TMPDIR": str(self.tmp),
            "HOME": str(root / "home"),
            "DISABLE_WORKTREE_ORPHAN_CLEANUP": "1",
        }
        if port is not None:
            env["BACKEND_PORT"] = str(port)
        self.log = (root / "vibe-kanban.log").open("wb")
        self.process = subprocess.Popen(
            [str(executable)], env=env, stdout=self.log, stderr=subprocess.STDOUT, cwd=root
        )
        self.url = f"http://127.0.0.1:{port or self._port_from_file()}"
        self._wait_healthy()

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.url + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            answer = json.loads(response.read())
        assert answer["success"], answer
        return answer["data"]

    def cards(self, board_name: str) -> list[dict[str, Any]]:
        """The board's cards, oldest first."""
        boards = [b for b in self.call("GET", "/api/projects") if b["name"] == board_name]
        if not boards:
            return []
        cards = self.call("GET", f"/api/tasks?project_id={boards[0]['id']}")
        return sorted(cards, key=lambda c: c["created_at"])

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()

    def _port_from_file(self) -> int:
        port_file = self.tmp / "vibe-kanban" / "vibe-kanban.port"
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if port_file.exists() and port_file.read_text().strip():
                return int(port_file.read_text())
            self._check_alive()
            time.sleep(0.05)
        raise AssertionError(f"Vibe Kanban wrote no port file; see {self.root}/vibe-kanban.log")

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/api/health", timeout=1) as response:
                    if response.status == 200:
                        return
            except OSError:
                self._check_alive()
                time.sleep(0.05)
        raise AssertionError(f"Vibe Kanban did not answer; see {self.root}/vibe-kanban.log")

    def _check_alive(self) -> None:
        if self.process.poll() is not None:
            raise AssertionError(f"Vibe Kanban exited; see {self.root}/vibe-kanban.log")
