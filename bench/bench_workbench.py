"""What the workbench costs a person: opening a long thread, and an answer's round trip.

- `open 2,000 messages`: a project whose thread holds 2,000 messages (Markdown, as a distillation
  writes them). Server: the page's HTML over HTTP. Browser: `goto` until the newest message is on
  screen (headless Debian Chromium).
- `answer → next AI message`: the person presses Send with a correction in Phase 1's review; the
  time until the AI's next distillation is on the page (the demo agent answers at once, so this is
  the pipeline's own latency). `in-process`: a `thoughtforge run` paused in its own process (a
  temporary Prefect server); `deployed`: a run of the `thoughtforge-pipeline/local` deployment
  under `thoughtforge up`, which suspends and is re-entered by the worker.

Run: .venv/bin/python bench/bench_workbench.py [--turns 5]
Prints the median and range of each figure.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import httpx
import yaml
from playwright.sync_api import Page, sync_playwright

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.browser import CHROMIUM, FLAGS  # noqa: E402
from tests.conftest import config_data  # noqa: E402
from tests.vibe_kanban import free_port  # noqa: E402
from thoughtforge.config import load_config  # noqa: E402
from thoughtforge.core.creation import create_project  # noqa: E402
from thoughtforge.core.state import ChatMessage, read_thread, write_chat  # noqa: E402
from thoughtforge.core.waiting import Waiting, current_wait  # noqa: E402
from thoughtforge.models import Phase  # noqa: E402

BIN = Path(sys.executable).parent
MESSAGE = "## Objective\n\nA wedding for **sixty** guests.\n\n- budget 15k\n- a rain plan\n" * 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=5, help="answers timed per path")
    turns = parser.parse_args().turns
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        config_file = _config(Path(folder))
        _report("open 2,000 messages", _open_long_thread(config_file, page))
        _report("answer → next AI message, in-process", _in_process(config_file, page, turns))
        _report("answer → next AI message, deployed", _deployed(config_file, page, turns))
        browser.close()


def _config(folder: Path) -> Path:
    data = config_data(
        folder,
        server={"host": "127.0.0.1", "port": free_port()},
        web={"port": free_port()},
        concurrency={"max_parallel_runs": 50},
    )
    data["agents"]["default"] = "demo"
    data["agents"]["call_timeout_seconds"] = 60
    path = folder / "config.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _open_long_thread(config_file: Path, page: Page) -> dict[str, list[float]]:
    config = load_config(config_file)
    project = create_project(config, brain_dump="A long conversation.")
    write_chat(
        project.dir,
        [
            ChatMessage(
                role=("human", "ai")[n % 2], content=f"{n}: {MESSAGE}", phase=Phase.HUMAN_REVIEW
            )
            for n in range(2000)
        ],
    )
    with _web(config_file) as url:
        server = [
            _seconds(lambda: httpx.get(f"{url}/projects/{project.id}").raise_for_status())
            for _ in range(20)
        ]
        browser = []
        for _ in range(10):
            started = time.perf_counter()
            page.goto(f"{url}/projects/{project.id}")
            page.locator('[data-index="1999"]').wait_for()
            browser.append(time.perf_counter() - started)
    return {"server (HTML)": server, "browser (newest message shown)": browser}


def _in_process(config_file: Path, page: Page, turns: int) -> dict[str, list[float]]:
    brain_dump = REPO / "examples" / "wedding-plan.md"
    run = subprocess.Popen(
        [str(BIN / "thoughtforge"), "--config", str(config_file), "run", str(brain_dump)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        with _web(config_file) as url:
            return {"seconds": _turns(config_file, page, url, turns)}
    finally:
        run.kill()


def _deployed(config_file: Path, page: Page, turns: int) -> dict[str, list[float]]:
    tf = [str(BIN / "thoughtforge"), "--config", str(config_file)]
    subprocess.run([*tf, "up"], check=True, capture_output=True)
    try:
        config = load_config(config_file)
        url = f"http://127.0.0.1:{config.web.port}"
        page.goto(f"{url}/projects/new")
        page.fill("#brain-dump", (REPO / "examples" / "wedding-plan.md").read_text())
        page.click("button[type=submit]")
        page.wait_for_url("**/projects/2*")
        return {"seconds": _turns(config_file, page, url, turns)}
    finally:
        subprocess.run([*tf, "down"], capture_output=True)


def _turns(config_file: Path, page: Page, url: str, turns: int) -> list[float]:
    """Distil once, then time `turns` corrections, each until its distillation is on the page."""
    config = load_config(config_file)
    project = _newest_project(config.projects.directory)
    page.goto(f"{url}/projects/{project.name}")
    _wait_until(lambda: _waits(project, "IntakeTurn"), 120)
    page.locator('#actions [data-action="distill"]').click()
    _wait_until(lambda: _waits(project, "ReviewTurn"), 120)
    times = []
    for n in range(turns):
        _wait_until(lambda: _waits(project, "ReviewTurn"), 120)
        page.locator("#actions .composer-note", has_text="corrections or Confirm").wait_for()
        asked = current_wait(project)
        shown = page.locator(".message.ai").count()
        page.fill("#message", f"Correction {n}: the budget is {14 - n}k.")
        started = time.perf_counter()
        page.locator('#actions [data-action="send"]').click()
        page.locator(".message.ai").nth(shown).wait_for(timeout=120_000)
        times.append(time.perf_counter() - started)
        _wait_until(partial(_asked_again, project, asked), 120)
    return times


class _web:
    """`thoughtforge web` in a process of its own, for as long as the block runs."""

    def __init__(self, config_file: Path) -> None:
        self.config_file = config_file

    def __enter__(self) -> str:
        port = load_config(self.config_file).web.port
        self.process = subprocess.Popen(
            [str(BIN / "thoughtforge"), "--config", str(self.config_file), "web"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}"
        _wait_until(lambda: _answers(url), 30)
        return url

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.wait(10)


def _answers(url: str) -> bool:
    try:
        return httpx.get(url).status_code == 200
    except httpx.HTTPError:
        return False


def _waits(project: Path, kind: str) -> bool:
    waiting = current_wait(project)
    return waiting is not None and waiting.kind == kind and len(read_thread(project)) > 0


def _asked_again(project: Path, before: Waiting | None) -> bool:
    waiting = current_wait(project)
    return waiting is not None and before is not None and waiting.key != before.key


def _newest_project(root: Path) -> Path:
    _wait_until(lambda: any(p.name[0].isdigit() for p in root.glob("*")), 60)
    return max((p for p in root.iterdir() if p.name[0].isdigit()), key=lambda p: p.stat().st_mtime)


def _wait_until(condition: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"gave up after {seconds} s")
        time.sleep(0.1)


def _seconds(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _report(title: str, figures: dict[str, list[float]]) -> None:
    for name, values in figures.items():
        print(
            f"{title}, {name}: median {statistics.median(values):.3f} s "
            f"(min {min(values):.3f}, max {max(values):.3f}, n={len(values)})",
            flush=True,
        )


if __name__ == "__main__":
    main()
