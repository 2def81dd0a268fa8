"""How long `thoughtforge up` takes, beside `prefect server start` on the same database.

Three figures, interleaved round by round so the machine's mood hits them alike:
- anchor: `prefect server start` until `/api/health` answers, then stopped;
- cold: `up` with nothing running (the database, pool and deployments are there from before);
- warm: `up` again with everything running and nothing changed.
A first `up` (fresh database: migrations, pool, deployments) is timed once, before the rounds.
Beside each wall time, the CPU time the command itself used (user + system, its waited-for
children included, not the servers it leaves running): on a loaded machine, where wall times
stretch with the load, it says what `up` costs by itself.

Run: `.venv/bin/python bench/bench_up.py [ROUNDS]`.
"""

from __future__ import annotations

import argparse
import os
import resource
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
HEALTH_DEADLINE_SECONDS = 120.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=0.5) as response:
            return bool(response.status == 200)
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

    def tf(self, command: str) -> tuple[float, float]:
        """Wall and CPU seconds of `thoughtforge COMMAND`."""
        before = _children_cpu()
        started = time.perf_counter()
        subprocess.run(
            [str(BIN / "thoughtforge"), "--config", str(self.config), command],
            env=self.env,
            check=True,
            capture_output=True,
            timeout=300,
        )
        return time.perf_counter() - started, _children_cpu() - before

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
        deadline = time.monotonic() + HEALTH_DEADLINE_SECONDS
        while not _healthy(self.api):
            if time.monotonic() > deadline or process.poll() is not None:
                os.killpg(process.pid, signal.SIGTERM)
                raise SystemExit("`prefect server start` did not answer its health check")
            time.sleep(0.05)
        elapsed = time.perf_counter() - started
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
        return elapsed


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _line(name: str, times: list[float], cpu: list[float] | None = None) -> str:
    spent = f"  CPU median {statistics.median(cpu):5.2f} s" if cpu else ""
    return (
        f"{name:<34} median {statistics.median(times):6.2f} s  "
        f"min {min(times):6.2f}  max {max(times):6.2f}  (n={len(times)}){spent}"
    )


def main(rounds: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        setup = Setup(Path(folder))
        first, _ = setup.tf("up")
        setup.tf("down")
        anchor: list[float] = []
        cold: list[tuple[float, float]] = []
        warm: list[tuple[float, float]] = []
        for _ in range(rounds):
            anchor.append(setup.server_start())
            cold.append(setup.tf("up"))
            warm.append(setup.tf("up"))
            setup.tf("down")
        print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        print(f"first `up` (fresh database)         {first:6.2f} s")
        print(_line("`prefect server start` → healthy", anchor))
        print(_line("cold `up` (nothing running)", [t for t, _ in cold], [c for _, c in cold]))
        print(_line("warm `up` (nothing changed)", [t for t, _ in warm], [c for _, c in warm]))
        ratio = statistics.median(t for t, _ in cold) / statistics.median(anchor)
        print(f"cold `up` / server start: {ratio:.2f}×")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rounds", type=int, nargs="?", default=5)
    main(parser.parse_args().rounds)
