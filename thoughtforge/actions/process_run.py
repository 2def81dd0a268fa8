"""Starting a project's run for an agent tool: the way the page does when a server runs it
(`thoughtforge up`: a run of the `thoughtforge-pipeline/local` deployment), else the way the CLI
does (`thoughtforge continue ID`, the pipeline in a process of its own, which starts a temporary
Prefect server when none runs).

The CLI's process is started in a session of its own, so it outlives the MCP server (an agent
tool restarts its servers freely; a run is the person's work) and its output goes to
`mcp-runs/<id>.log` beside the config. Its pid is kept in `mcp-runs/<id>.pid`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from thoughtforge.actions.answering import Starter
from thoughtforge.actions.starting import Started, start_run
from thoughtforge.catalogue import RunAnswer
from thoughtforge.config import Config, state_dir
from thoughtforge.core.course_claim import Claim, release
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import log_event
from thoughtforge.stack.api import find_api

RUNS_DIR = "mcp-runs"


def start_project_run(
    config: Config, config_file: Path, project: Project, *, handed: Claim | None = None
) -> Started:
    """A run of the project on the deployment when a server has it, else in a CLI process;
    `handed` (a revision's claim) becomes the deployment run's, and is let go before a CLI
    process starts, which takes the project's claim itself."""
    if find_api(config) is not None:
        started = start_run(config, config_file, project, handed=handed)
        if started.run_id is not None:
            return started
    if handed is not None:
        release(project, handed)
    pid = _start_cli_run(config_file, project)
    return Started(
        run_id=f"pid-{pid}",
        note=f"Started a run in a process of its own (pid {pid}; its output in "
        f"{_runs_dir(config_file) / (project.id + '.log')}).",
    )


def starting_without_handing(pending: list[RunAnswer]) -> Starter:
    """`start_project_run` as the `Starter` of an answer: the answer the run is to be handed
    goes to `pending` instead, for the tool to hand over once the run asks (so the reply it
    returns is known to follow that question)."""

    def start(
        config: Config,
        config_file: Path,
        project: Project,
        then: RunAnswer | None,
        /,
        *,
        handed: Claim | None = None,
    ) -> Started:
        if then is not None:
            pending.append(then)
        return start_project_run(config, config_file, project, handed=handed)

    return start


def started_run_alive(config_file: Path, project: Project) -> bool:
    """Whether the CLI process last started for the project still runs."""
    try:
        pid = int((_runs_dir(config_file) / f"{project.id}.pid").read_text())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return False
    return _not_a_zombie(pid)


def _start_cli_run(config_file: Path, project: Project) -> int:
    folder = _runs_dir(config_file)
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / f"{project.id}.log").open("ab") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "thoughtforge",
                "--config",
                str(config_file),
                "continue",
                project.id,
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    (folder / f"{project.id}.pid").write_text(str(process.pid))
    threading.Thread(target=process.wait, daemon=True).start()  # reaped when it ends
    log_event(project.dir, "run_started_from_mcp", pid=process.pid)
    return process.pid


def _runs_dir(config_file: Path) -> Path:
    return state_dir(config_file) / RUNS_DIR


def _not_a_zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] != "Z"
