"""What `thoughtforge status` and `thoughtforge board` cost a person with many projects.

Builds a projects folder of 1,000 projects (by default) as real use leaves them: a few are made by
`create_project` and moved by `transition()` to every phase the board shows (halted and terminated
ones too, a polishing and a finished one with a polish trajectory, chats of a few messages), then
copied under fresh ids, names and times until there are enough. A few are left unreadable, as a
crash or a hand edit might leave them. Each command then runs as a person runs it, a new process
with its output piped, and `thoughtforge --help` beside them is the floor: what starting the
command line costs before it reads a project.

Run: .venv/bin/python bench/bench_status.py [--projects 1000] [--runs 7] [--unreadable 3]
Prints the median and range of each command's wall time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.conftest import BRAIN_DUMP, config_data  # noqa: E402
from thoughtforge.config import Config, load_config  # noqa: E402
from thoughtforge.core.creation import create_project  # noqa: E402
from thoughtforge.core.project import Project  # noqa: E402
from thoughtforge.core.state import (  # noqa: E402
    ChatMessage,
    PolishState,
    TrajectoryEntry,
    append_chat,
    read_status,
    write_polish_state,
    write_status,
)
from thoughtforge.core.transition import transition  # noqa: E402
from thoughtforge.models import (  # noqa: E402
    Counts,
    DeliverableType,
    HaltReason,
    Issue,
    Phase,
    Severity,
)

DISTILLATION = (
    "## Objective\n\nA wedding for **sixty** guests.\n\n- budget 15k\n- a rain plan\n" * 4
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", type=int, default=1000, help="projects in the folder")
    parser.add_argument("--runs", type=int, default=7, help="runs timed per command")
    parser.add_argument("--unreadable", type=int, default=3, help="projects with a corrupt file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tf-bench-status-") as folder:
        config_file = _config(Path(folder))
        started = time.perf_counter()
        _fill(config_file, args.projects, args.unreadable)
        print(f"{args.projects} projects made in {time.perf_counter() - started:.1f} s")
        for label, command in (
            ("thoughtforge --help", ["--help"]),
            ("thoughtforge status", ["status"]),
            ("thoughtforge board", ["board"]),
        ):
            _report(label, _timed(config_file, command, args.runs))


def _config(folder: Path) -> Path:
    data = config_data(folder, concurrency={"max_parallel_runs": 1_000_000})
    data["agents"]["default"] = "demo"
    path = folder / "config.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _fill(config_file: Path, count: int, unreadable: int) -> None:
    """`count` projects: one of each kind made for real, the rest copies of them under new ids,
    names and times; the first `unreadable` copies get a `status.json` cut short."""
    config = load_config(config_file)
    kinds = [_made(config, name, *kind) for name, kind in _KINDS.items()]
    epoch = datetime(2026, 11, 1, tzinfo=UTC)
    for n in range(count - len(kinds)):
        target = config.projects.directory / f"20261101-bench-{n:05d}"
        shutil.copytree(kinds[n % len(kinds)].dir, target, symlinks=True)
        status = read_status(target)
        when = epoch + timedelta(minutes=17 * n)
        changes = {"created_at": when - timedelta(days=2), "updated_at": when}
        if status.project_name:
            changes["project_name"] = f"{status.project_name} {n}"
        write_status(target, status.model_copy(update=changes))
        if n < unreadable:
            (target / "status.json").write_text('{"phase": "buil', encoding="utf-8")


_ROUTE = (
    Phase.DISTILLING,
    Phase.HUMAN_REVIEW,
    Phase.SPEC_BUILDING,
    Phase.BUILDING,
    Phase.POLISHING,
    Phase.DONE,
)
_KINDS: dict[str, tuple[tuple[Phase, ...], HaltReason | None, DeliverableType]] = {
    "Fresh": ((), None, DeliverableType.PLAN),
    "Wedding": (_ROUTE[:1], None, DeliverableType.PLAN),
    "Review": (_ROUTE[:2], None, DeliverableType.PLAN),
    "Spec": (_ROUTE[:3], None, DeliverableType.PLAN),
    "Todo CLI": (_ROUTE[:4], None, DeliverableType.CODE),
    "Budget": (_ROUTE[:5], None, DeliverableType.PLAN),
    "Essay": (_ROUTE, None, DeliverableType.PLAN),
    "Garden": (_ROUTE[:1], HaltReason.AGENT_FAILURE, DeliverableType.PLAN),
    "Novel": (_ROUTE[:2], HaltReason.HUMAN_TERMINATED, DeliverableType.PLAN),
    "Guarded": (_ROUTE[:5], HaltReason.GUARD_MAX_ITERATIONS, DeliverableType.PLAN),
}
"""Each kind of project a board shows: the phases a run moved it through, the halt it ended in,
what it makes."""


def _made(
    config: Config,
    name: str,
    route: tuple[Phase, ...],
    halt: HaltReason | None,
    deliverable: DeliverableType,
) -> Project:
    """A project moved along `route` by `transition()` as a run moves it, its chat and polish
    state written on the way."""
    project = create_project(config, brain_dump=BRAIN_DUMP)
    for phase in route:
        transition(project, phase, project_name=name, deliverable_type=deliverable)
        if phase is Phase.DISTILLING:
            append_chat(project.dir, ChatMessage(role="ai", content=DISTILLATION, phase=phase))
        if phase is Phase.POLISHING:
            write_polish_state(project.dir, _polish(done=route[-1] is Phase.DONE))
    if halt is not None:
        transition(project, Phase.HALTED, halt_reason=halt)
    return project


def _polish(done: bool) -> PolishState:
    """A polish loop's state after a handful of iterations, its last review's issues kept."""
    totals = (21, 14, 11, 9, 7, 5, 4) + ((2, 1) if done else ())
    issue = Issue(severity=Severity.MINOR, description="No tent supplier is named.", location="§4")
    issues = [issue] * totals[-1]
    return PolishState(
        iteration=len(totals),
        counts=Counts.of(issues),
        trajectory=[
            TrajectoryEntry(
                iteration=n,
                critical=0,
                medium=0,
                minor=total,
                total=total,
                fix_applied=True,
                timestamp=datetime(2026, 11, 20, n, tzinfo=UTC),
            )
            for n, total in enumerate(totals, start=1)
        ],
        completed=done,
        last_issues=issues,
    )


def _timed(config_file: Path, command: list[str], runs: int) -> list[float]:
    """Wall time of each run, as a new process whose output goes to a pipe, in a console of 200
    columns (the board's seven columns side by side)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "200"}
    argv = [sys.executable, "-m", "thoughtforge", "--config", str(config_file), *command]
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        result = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
        times.append(time.perf_counter() - started)
        if result.returncode not in (0, 1) or "Traceback" in result.stderr:
            raise SystemExit(f"{' '.join(command)} failed:\n{result.stderr}")
    return times


def _report(label: str, times: list[float]) -> None:
    print(
        f"{label:<22} median {statistics.median(times):.3f} s  "
        f"(min {min(times):.3f}, max {max(times):.3f}, {len(times)} runs)"
    )


if __name__ == "__main__":
    main()
