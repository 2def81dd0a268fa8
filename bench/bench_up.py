"""How long `thoughtforge up` takes, beside `prefect server start` on the same database.

Three figures, interleaved round by round so the machine's mood hits them alike:
- anchor: `prefect server start` until `/api/health` answers, then stopped;
- cold: `up` with nothing running (the database, pool and deployments are there from before);
- warm: `up` again with everything running and nothing changed.
A first `up` (fresh database: migrations, pool, deployments) is timed once, before the rounds.

Run: `.venv/bin/python bench/bench_up.py [ROUNDS]`.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import yaml

BIN = Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=0.5) as response:
            return response.status == 200
    except OSError:
        return False


class Setup:
    def __init__(self, home: Path) -> None:
        self.port = _free_port()
        self.api = f"http://127.0.0.1:{self.port}/api"
        self.config = home / "config.yaml"
        data = {
            "projects": {"directory": str(home / "projects")},
            "server": {"host": "127.0.0.1", "port": self.port},
            "web": {"port": _free_port()},
            "agents": {
                "default": "demo",
                "available": {"demo": {"command": "thoughtforge-scripted-agent", "flags": []}},
            },
        }
        self.config.write_text(yaml.safe_dump(data))
        self.env = {
            **os.environ,
            "PREFECT_HOME": str(home / ".prefect"),
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        }
        self.env.pop("PREFECT_API_URL", None)

    def tf(self, command: str) -> float:
        started = time.perf_counter()
        subprocess.run(
            [str(BIN / "thoughtforge"), "--config", str(self.config), command],
            env=self.env,
            check=True,
            capture_output=True,
        )
        return time.perf_counter() - started

    def server_start(self) -> float:
        """`prefect server start` until healthy; stopped afterwards."""
        started = time.perf_counter()
        process = subprocess.Popen(
            [str(BIN / "prefect"), "server", "start", "--port", str(self.port)],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        while not _healthy(self.api):
            time.sleep(0.05)
        elapsed = time.perf_counter() - started
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
        return elapsed


def _line(name: str, times: list[float]) -> str:
    return (
        f"{name:<34} median {statistics.median(times):6.2f} s  "
        f"min {min(times):6.2f}  max {max(times):6.2f}  (n={len(times)})"
    )


def main(rounds: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        setup = Setup(Path(folder))
        first = setup.tf("up")
        setup.tf("down")
        anchor: list[float] = []
        cold: list[float] = []
        warm: list[float] = []
        for _ in range(rounds):
            anchor.append(setup.server_start())
            cold.append(setup.tf("up"))
            warm.append(setup.tf("up"))
            setup.tf("down")
        print(f"first `up` (fresh database)         {first:6.2f} s")
        print(_line("`prefect server start` → healthy", anchor))
        print(_line("cold `up` (nothing running)", cold))
        print(_line("warm `up` (nothing changed)", warm))
        ratio = statistics.median(cold) / statistics.median(anchor)
        print(f"cold `up` / server start: {ratio:.2f}×")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rounds", type=int, nargs="?", default=5)
    main(parser.parse_args().rounds)
