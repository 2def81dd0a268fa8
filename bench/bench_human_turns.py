"""How long a person's answer takes to reach the agent, on the path the README tells them to use.

One scripted conversation of eight turns (a message, distill, two corrections, realign, confirm,
a spec answer, confirm) is played on each path, with an agent that notes when it is started and
then answers as the demo agent does:
- `in-process`: `thoughtforge run` in its own process, which pauses (the anchor);
- `deployed`: `thoughtforge up`, `prefect deployment run`, answers from the CLI; the run holds its
  process while the person is active (`human.hold_seconds`, default);
- `deployed, Prefect UI`: the same, answered as the UI's Resume form does (its REST call);
- `deployed, after a suspension`: `human.hold_seconds: 0`, so every answer re-enters the run.

A turn is timed from the moment the answer has been handed over (the CLI returned, or the UI's
call was answered) until the next agent call starts, or, for a turn that calls no agent, until the
next question is recorded. `deployment run → first question` is timed from the command's start.
While the last question waits, the memory of the process that ran the last agent is read from
/proc (on a held path the flow run, forked from the warm starter; in-process, `thoughtforge run`):
RSS, its peak, and PSS (RSS with the pages shared copy-on-write divided among their sharers).
After a suspension no process waits, so there is nothing to read.

Run: `.venv/bin/python bench/bench_human_turns.py [--rounds 2]`.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.conftest import config_data  # noqa: E402
from tests.vibe_kanban import free_port  # noqa: E402
from thoughtforge.core.waiting import Waiting, current_wait  # noqa: E402
from thoughtforge.stack.api import PrefectApi  # noqa: E402

BIN = Path(sys.executable).parent
BRAIN_DUMP = REPO / "examples" / "wedding-plan.md"
CONVERSATION: list[tuple[str, str, str]] = [
    ("message (Phase 1)", "send", "And a string quartet for the ceremony."),
    ("distill", "distill", ""),
    ("correction", "send", "The budget is 14k, not 15k."),
    ("correction", "send", "Sixty guests, not fifty."),
    ("realign", "realign", ""),
    ("confirm intent", "confirm", ""),
    ("spec answer", "send", "Keep the vendor list to three quotes each."),
    ("confirm spec", "confirm", ""),
]
TIMED_AGENT = """#!/bin/sh
echo "$(date +%s.%N) $THOUGHTFORGE_STEP $PPID" >> {stamps}
exec {scripted}
"""


class Pipeline:
    """One way of running the pipeline: start it, answer it, stop it."""

    def __init__(self, folder: Path, hold_seconds: float | None) -> None:
        folder.mkdir()
        self.folder = folder
        self.stamps = folder / "agent-starts"
        agent = folder / "timed-agent"
        agent.write_text(
            TIMED_AGENT.format(stamps=self.stamps, scripted=BIN / "thoughtforge-scripted-agent")
        )
        agent.chmod(0o755)
        data = config_data(
            folder,
            server={"host": "127.0.0.1", "port": free_port()},
            web={"port": free_port()},
            concurrency={"max_parallel_runs": 50},
        )
        data["agents"]["default"] = "timed"
        data["agents"]["call_timeout_seconds"] = 60
        data["agents"]["available"]["timed"] = {"command": str(agent), "flags": []}
        if hold_seconds is not None:
            data["human"] = {"hold_seconds": hold_seconds}
        self.config = folder / "config.yaml"
        self.config.write_text(yaml.safe_dump(data))
        self.env = {**os.environ, "PREFECT_HOME": str(folder / ".prefect")}
        self.env.pop("PREFECT_API_URL", None)
        self.api_url = f"http://127.0.0.1:{data['server']['port']}/api"

    def tf(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "thoughtforge"), "--config", str(self.config), *args],
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        )

    def project(self) -> Path:
        root = self.folder / "projects"
        _until(lambda: root.exists() and any(p.name[0].isdigit() for p in root.iterdir()))
        return next(p for p in root.iterdir() if p.name[0].isdigit())

    def agent_starts(self) -> list[float]:
        return [float(stamp[0]) for stamp in self._stamps()]

    def flow_run_memory(self) -> dict[str, float] | None:
        """MiB of the process that started the last agent, if it still runs."""
        pid = self._stamps()[-1][2]
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
        except FileNotFoundError:
            return None
        fields = {
            line.split(":")[0]: int(line.split()[1]) / 1024
            for line in (status + rollup).splitlines()
            if line.endswith(" kB")
        }
        return {"RSS": fields["VmRSS"], "peak": fields["VmHWM"], "PSS": fields["Pss"]}

    def _stamps(self) -> list[list[str]]:
        if not self.stamps.exists():
            return []
        return [line.split() for line in self.stamps.read_text().splitlines()]


class Played(NamedTuple):
    """One conversation: seconds per kind of turn, to the first question, and the flow run's MiB."""

    times: dict[str, list[float]]
    first: float
    memory: dict[str, float] | None = None


def _until(condition: Callable[[], Any], seconds: float = 120) -> Any:
    deadline = time.monotonic() + seconds
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise TimeoutError("the run did not get there")
        time.sleep(0.01)
    return value


def _asked(project: Path, after: Waiting | None) -> Waiting:
    """The next question, once its run is ready for the answer."""
    return _until(
        lambda: (
            (w := current_wait(project)) is not None and (after is None or w.key != after.key) and w
        )
    )


def _play(
    path: Pipeline, project: Path, answer: Callable[[Path, str, str], None], first: float
) -> Played:
    """The conversation; seconds from each handed-over answer to the next agent start/question."""
    times: dict[str, list[float]] = defaultdict(list)
    asked = _asked(project, None)
    memory = None
    for number, (kind, action, message) in enumerate(CONVERSATION):
        if number == len(CONVERSATION) - 1:
            memory = path.flow_run_memory()
        started = len(path.agent_starts())
        answer(project, action, message)
        handed = time.time()
        reached = _until(partial(_next_start_or_question, path, project, started, asked))
        times[kind].append(max(0.0, reached - handed))
        if number < len(CONVERSATION) - 1:  # the last confirm starts the build: no more questions
            asked = _asked(project, asked)
    return Played(times, first, memory)


def _next_start_or_question(
    path: Pipeline, project: Path, starts_before: int, asked: Waiting
) -> float | None:
    starts = path.agent_starts()[starts_before:]
    if starts:
        return starts[0]
    waiting = current_wait(project)
    if waiting is not None and waiting.key != asked.key:
        return waiting.since.timestamp()
    return None


def _cli_answer(path: Pipeline) -> Callable[[Path, str, str], None]:
    def answer(project: Path, action: str, message: str) -> None:
        if action == "send":
            path.tf("say", project.name, message)
        else:
            path.tf(action, project.name)

    return answer


def _ui_answer(path: Pipeline) -> Callable[[Path, str, str], None]:
    """What the Prefect UI's Resume form does: resume the waiting run with the form's values."""
    from thoughtforge.core.project import Project

    api = PrefectApi(path.api_url)

    def answer(project_dir: Path, action: str, message: str) -> None:
        project = Project(id=project_dir.name, dir=project_dir)
        run = _until(lambda: api.live_waiting_run(project))
        api.resume(run, {"message": message, "action": action})

    return answer


def in_process(folder: Path) -> Played:
    path = Pipeline(folder, None)
    started = time.time()
    run = subprocess.Popen(
        [str(BIN / "thoughtforge"), "--config", str(path.config), "run", str(BRAIN_DUMP)],
        env=path.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        project = path.project()
        first = _asked(project, None).since.timestamp() - started
        return _play(path, project, _cli_answer(path), first)
    finally:
        os.killpg(run.pid, signal.SIGTERM)  # the run and the temporary server it started
        run.wait()


def deployed(folder: Path, hold_seconds: float | None, ui: bool = False) -> Played:
    path = Pipeline(folder, hold_seconds)
    path.tf("up")
    try:
        started = time.time()
        subprocess.run(
            [
                str(BIN / "prefect"),
                "deployment",
                "run",
                "thoughtforge-pipeline/local",
                "-p",
                f"brain_dump=@{BRAIN_DUMP}",
            ],
            env={**path.env, "PREFECT_API_URL": path.api_url},
            check=True,
            capture_output=True,
        )
        project = path.project()
        first = _asked(project, None).since.timestamp() - started
        answer = _ui_answer(path) if ui else _cli_answer(path)
        return _play(path, project, answer, first)
    finally:
        subprocess.run(
            [str(BIN / "thoughtforge"), "--config", str(path.config), "down"],
            env=path.env,
            capture_output=True,
        )


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _report(name: str, results: list[Played]) -> None:
    every: list[float] = []
    print(f"\n{name}")
    kinds = dict.fromkeys(kind for kind, _, _ in CONVERSATION)
    for kind in kinds:
        values = [t for played in results for t in played.times[kind]]
        every.extend(values)
        print(f"  {kind:<20} median {statistics.median(values):6.3f} s  p95 {_p95(values):6.3f} s")
    firsts = [played.first for played in results]
    print(
        f"  {'every turn':<20} median {statistics.median(every):6.3f} s  p95 {_p95(every):6.3f} s"
        f"  (n={len(every)})"
    )
    print(f"  start → first question: median {statistics.median(firsts):6.3f} s")
    memories = [played.memory for played in results if played.memory]
    if memories:
        print(
            "  flow-run process at the end, MiB (median): "
            + ", ".join(
                f"{key} {statistics.median(m[key] for m in memories):.1f}" for key in memories[0]
            )
        )


def main(rounds: int) -> None:
    paths: dict[str, Callable[[Path], Played]] = {
        "in-process (pause)": in_process,
        "deployed, CLI (held)": lambda folder: deployed(folder, None),
        "deployed, Prefect UI (held)": lambda folder: deployed(folder, None, ui=True),
        "deployed, CLI, after a suspension (hold 0)": lambda folder: deployed(folder, 0),
    }
    results: dict[str, list[Played]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as folder:
        for round_number in range(rounds):
            for number, (name, play) in enumerate(paths.items()):
                results[name].append(play(Path(folder) / f"{round_number}-{number}"))
    for name, played in results.items():
        _report(name, played)
    firsts = [
        conversation.first
        for name, played in results.items()
        if name.startswith("deployed")
        for conversation in played
    ]
    print(
        f"\n`deployment run` → first question, every deployed path (each right after its `up`): "
        f"median {statistics.median(firsts):.3f} s, max {max(firsts):.3f} s (n={len(firsts)})"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="conversations per path")
    main(parser.parse_args().rounds)
