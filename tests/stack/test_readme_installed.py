"""Every `thoughtforge` command the README and docs print, and every line `up` prints, run as
written in a tool install (the wheel in a venv of its own), from a folder that is not the clone,
with the scripted demo agent: each exits 0 and does what its words say. A command that needs a
project or a server runs after the ones that make it; one `up` serves them all.

`tests/cli/test_readme_commands.py` checks, quickly, that each printed command exists with its
options; this test is the newcomer pasting them.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.cli.test_readme_commands import printed_commands
from tests.stack.conftest import INSTALLED_TIMEOUT, REPO, free_port, run_ok, wait_for
from thoughtforge.config import state_dir
from thoughtforge.core.processes import live_processes
from thoughtforge.core.project import Project
from thoughtforge.core.project_view import read_view
from thoughtforge.core.state import read_status
from thoughtforge.core.waiting import current_wait
from thoughtforge.models import Phase
from thoughtforge.stack.api import PrefectApi

pytestmark = [pytest.mark.slow, pytest.mark.timeout(INSTALLED_TIMEOUT)]

SAID = "The venue is booked for June 14th."
"""The README's `say` line's words."""


class Newcomer:
    """A shell in a tool install's working folder: the README's lines, pasted as written."""

    def __init__(self, installed: Path, home: Path) -> None:
        self.bin = installed / "bin"
        self.work = home / "work"
        self.work.mkdir()
        self.port, self.web_port = free_port(), free_port()
        self.env = {
            "PATH": "/usr/bin:/bin",  # the venv is not activated: a tool's commands run by path
            "HOME": str(home),
            "PREFECT_HOME": str(home / ".prefect"),
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "COLUMNS": "200",
            "LANG": os.environ.get("LANG", "C.UTF-8"),
            # the README's `up` takes the default ports; a shared machine needs free ones
            "THOUGHTFORGE_SERVER_PORT": str(self.port),
            "THOUGHTFORGE_WEB_PORT": str(self.web_port),
        }
        self.printed = {tuple(words) for _, words in printed_commands()}
        self.ran: set[tuple[str, ...]] = set()

    def argv(self, words: tuple[str, ...], project_id: str = "") -> list[str]:
        """A printed line as this install runs it: `ID` is the project's id."""
        assert words in self.printed, f"no document prints `thoughtforge {shlex.join(words)}`"
        self.ran.add(words)
        return [str(self.bin / "thoughtforge"), *(project_id if w == "ID" else w for w in words)]

    def run(self, *words: str, project_id: str = "") -> str:
        """A printed line, run to its end: it must exit 0; its output."""
        done = run_ok(self.argv(words, project_id), env=self.env, cwd=self.work, timeout=300)
        return done.stdout + done.stderr

    @contextmanager
    def meanwhile(self, *words: str, project_id: str = "") -> Iterator[Callable[[], str]]:
        """A printed line that waits for the person, running while the block answers it; the
        block's end waits for it to exit 0, and what it printed is the yielded call's."""
        log = self.work.parent / f"{words[0]}-{len(self.ran)}.log"
        with log.open("w") as sink:
            process = subprocess.Popen(
                self.argv(words, project_id),
                env=self.env,
                cwd=self.work,
                stdout=sink,
                stderr=subprocess.STDOUT,
                text=True,
            )
        try:
            yield log.read_text
            code = process.wait(timeout=300)
            assert code == 0, f"`{shlex.join(words)}` exited {code}:\n{log.read_text()}"
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()

    def projects(self) -> list[Path]:
        folder = self.work / "projects"
        found = folder.glob("*") if folder.exists() else []
        return sorted(p for p in found if not p.name.startswith("."))

    def created(self, output: str) -> Path:
        """The project a command's output says it created."""
        [project_id] = re.findall(r"Created project (\S+) in", output)
        return self.work / "projects" / project_id

    def waits(self, project: Path, kind: str) -> Callable[[], bool]:
        """The project's run waits for the person with form `kind`, ready to take an answer."""

        def check() -> bool:
            waiting = current_wait(project)
            if waiting is None or waiting.kind != kind:
                return False
            api = PrefectApi(f"http://127.0.0.1:{self.port}/api")
            run = api.waiting_run(project.name)
            return run is not None and api.form_published(run)

        return check


def _answers(address: str) -> bool:
    """The address opens in a browser (the Prefect UI's pages answer a page's request only)."""
    request = urllib.request.Request(address, headers={"Accept": "text/html"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return bool(response.status == 200)


def test_every_printed_command_runs_as_written_in_a_tool_install(
    installed: Path, tmp_path: Path
) -> None:
    tf = Newcomer(installed, tmp_path)
    assert not tf.work.is_relative_to(REPO)
    run_ok([str(tf.bin / "thoughtforge"), "init"], env=tf.env, cwd=tf.work)  # the README's prose

    started = tf.run("up")
    try:
        # `up`'s lines: the page, the Prefect UI, Prefect's own commands, a project's start.
        [page] = re.findall(r"Open the workbench: (\S+)", started)
        assert page == f"http://127.0.0.1:{tf.web_port}/" and _answers(page)
        [ui] = re.findall(r"Prefect UI: (\S+)", started)
        assert _answers(ui)
        [(prefect, api)] = re.findall(r"For `(.+)` commands in this shell: export (\S+)", started)
        name, url = api.split("=", 1)
        listed = run_ok([prefect, "deployment", "ls"], env={**tf.env, name: url}, cwd=tf.work)
        assert "thoughtforge-pipeline/local" in listed.stdout
        [start_line] = re.findall(r"Then start a project from it: (.+)", started)

        # The command line's tour: a run that waits for you, answered from another shell while
        # the first command takes a whole project to done.
        with tf.meanwhile("run", "examples/wedding-plan.md") as printed:
            finished = tf.run("run", "examples/wedding-plan.md", "--auto-confirm")
            done = tf.created(finished)
            assert "Done. Deliverable:" in finished and read_status(done).phase is Phase.DONE
            wait_for(lambda: "Created project" in printed(), "the waiting run's project")
            waiting = tf.created(printed())
            wait_for(tf.waits(waiting, "IntakeTurn"), "Phase 1's question")
            listing = tf.run("status")
            assert waiting.name in listing and done.name in listing
            asked = current_wait(waiting)
            tf.run("say", "ID", SAID, project_id=waiting.name)
            wait_for(
                lambda: current_wait(waiting) != asked and tf.waits(waiting, "IntakeTurn")(),
                "the run to take what was said and ask again",
            )
            chat = " ".join(p.read_text() for p in waiting.glob("chat_*.json"))
            assert SAID in chat
            tf.run("distill", "ID", project_id=waiting.name)
            wait_for(tf.waits(waiting, "ReviewTurn"), "the distillation to correct or confirm")
            assert read_status(waiting).phase is Phase.HUMAN_REVIEW
            tf.run("confirm", "ID", project_id=waiting.name)
            wait_for(tf.waits(waiting, "SpecTurn"), "Phase 2's spec to confirm")
            assert SAID in (waiting / "docs" / "intent.md").read_text()  # the intent, locked
            tf.run("confirm", "ID", project_id=waiting.name)
        assert "Done. Deliverable:" in printed()
        assert read_status(waiting).phase is Phase.DONE

        # The page's path (the worker takes them while the revision goes on; three projects at
        # work at most): runs started on `up`'s server by the README's line and by `up`'s own.
        deployed = "thoughtforge-pipeline/local"
        brain_dump = "brain_dump=@examples/wedding-plan.md"
        assert "Started" in tf.run("run-deployment", deployed, "-p", brain_dump)
        from_up = run_ok(shlex.split(start_line), env=tf.env, cwd=tf.work, timeout=300)
        assert "Started" in from_up.stdout

        # After done: a revision, confirmed as before, then its history.
        with tf.meanwhile("revise", "ID", "Cut the budget to 12k.", project_id=done.name):
            wait_for(tf.waits(done, "SpecTurn"), "the revision's spec to confirm")
            tf.run("confirm", "ID", project_id=done.name)
        assert read_view(Project(id=done.name, dir=done)).revision == 2
        assert "12k" in (done / "docs" / "plan.md").read_text()
        history = tf.run("history", "ID", "--named", project_id=done.name)
        assert {"phase1", "phase4"} <= set(re.findall(r"│ (\S+)\s+│ [0-9a-f]{7}", history))

        wait_for(lambda: len(tf.projects()) == 4, "both deployed runs' projects")
        for project in set(tf.projects()) - {done, waiting}:
            wait_for(tf.waits(project, "IntakeTurn"), "a deployed run's first question")
    finally:
        stopped = tf.run("down")
    assert "Stopped" in stopped
    assert live_processes(state_dir(tf.work / "config.yaml")) == [], "down left a process behind"
    assert tf.ran == tf.printed, f"printed but not run: {tf.printed - tf.ran}"
