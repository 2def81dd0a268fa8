"""The CLI's answers refuse what the page refuses, in the page's words: for each state, the same
project is asked through the real workbench (uvicorn, HTTP) and the real `thoughtforge` command,
and the CLI's error line is the page's error, then the commands that do what the page offers."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import BRAIN_DUMP, REPO_ROOT
from tests.web.conftest import Bench, serve_bench  # noqa: F401  (the workbench fixture)
from thoughtforge.bounded_input import MAX_MESSAGE_CHARS
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.core.state import read_chat
from thoughtforge.core.transition import transition
from thoughtforge.models import HaltReason, Phase


def _cli(bench: Bench, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "thoughtforge", "--config", str(bench.config_file), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(bench.config_file.parent),
            "COLUMNS": "200",
            "PYTHONPATH": str(REPO_ROOT),
        },
    )


@pytest.fixture
def bench(write_config: Callable[..., Path], serve_bench: Callable[[Path], Bench]) -> Bench:  # noqa: F811
    return serve_bench(write_config(concurrency={"max_parallel_runs": 10}))


def _refusals(
    bench: Bench, project: Project, answer: dict[str, str], *cli: str, stdin: str | None = None
) -> tuple[str, list[str]]:
    """The page's error for `answer`, and the CLI's stderr lines for `cli`; both refused, and
    neither stored a word."""
    chat = read_chat(project.dir)
    page = bench.post(f"/projects/{project.id}/answer", answer)
    assert page.status_code == 409, page.text
    command = _cli(bench, *cli, stdin=stdin)
    assert command.returncode == 1, command.stdout + command.stderr
    assert read_chat(project.dir) == chat
    return page.json()["error"], command.stderr.splitlines()


def test_confirm_with_nothing_waiting_is_refused_in_the_pages_words(bench: Bench) -> None:
    project = create_project(bench.config, brain_dump=BRAIN_DUMP)
    page, cli = _refusals(bench, project, {"action": "confirm"}, "confirm", project.id)
    assert page.startswith("Confirm is not possible now. No run is working on this project")
    assert cli == [f"error: {page}", f"Next: thoughtforge say|continue {project.id}"]


def test_say_to_a_halted_or_a_done_project_is_refused_in_the_pages_words(bench: Bench) -> None:
    halted, done = (create_project(bench.config, brain_dump=BRAIN_DUMP) for _ in range(2))
    transition(halted, Phase.DISTILLING)
    transition(halted, Phase.HALTED, halt_reason=HaltReason.AGENT_FAILURE)
    said = {"action": "send", "message": "Use the cheaper venue."}
    page, cli = _refusals(bench, halted, said, "say", halted.id, "Use the cheaper venue.")
    assert page.startswith("Send is not possible now. Halted (")
    assert cli == [f"error: {page}", f"Next: thoughtforge resume|terminate {halted.id}"]

    (done.dir / "status.json").write_text(
        (done.dir / "status.json").read_text().replace('"brain_dump"', '"done"')
    )
    page, cli = _refusals(bench, done, said, "say", done.id, "Use the cheaper venue.")
    assert page.startswith("Send is not possible now. Done: the deliverable is final.")
    assert cli == [f"error: {page}", f"Next: thoughtforge revise {done.id}"]


def test_a_decision_the_halt_does_not_take_is_refused_in_the_pages_words(bench: Bench) -> None:
    project = create_project(bench.config, brain_dump=BRAIN_DUMP)
    transition(project, Phase.DISTILLING)
    transition(project, Phase.HALTED, halt_reason=HaltReason.AGENT_FAILURE)
    answer = {"action": "provide_input", "message": "Build the venue page first."}
    page, cli = _refusals(bench, project, answer, "answer", project.id, answer["message"])
    assert page.startswith("Provide input is not possible now. Halted (")
    assert cli == [f"error: {page}", f"Next: thoughtforge resume|terminate {project.id}"]


def test_an_empty_or_a_too_long_message_is_refused_in_the_pages_words(bench: Bench) -> None:
    project = create_project(bench.config, brain_dump=BRAIN_DUMP)
    page, cli = _refusals(
        bench, project, {"action": "send", "message": " "}, "say", project.id, " "
    )
    assert page == "Write a message first: this action sends it."
    assert cli == [f"error: {page}"]

    long = "x" * (MAX_MESSAGE_CHARS + 1)
    sent = {"action": "send", "message": long}
    page, cli = _refusals(bench, project, sent, "say", project.id, "-", stdin=long)
    assert page.startswith(f"The message is {MAX_MESSAGE_CHARS + 1:,} characters; at most")
    assert cli == [f"error: {page}"]


def test_a_message_from_standard_input_at_the_limit_is_kept(bench: Bench) -> None:
    project = create_project(bench.config, brain_dump=BRAIN_DUMP)
    said = "line one\nline two " + "y" * (MAX_MESSAGE_CHARS - 18)
    kept = _cli(bench, "say", project.id, "-", stdin=said)
    assert kept.returncode == 0, kept.stderr
    assert "message queued" in kept.stdout
    assert read_chat(project.dir)[-1].content == said
