"""The page and the CLI answering one wait at the same moment: one reaches the run, and the other
is told its words were kept, not that the Prefect API failed."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.flows.conftest import run_cli, start_cli, waiting_run
from tests.flows.test_pipeline import BRAIN_DUMP, DISTILLATION, _only_project, _script
from tests.flows.test_polish_flow import _wait_for
from thoughtforge.actions.answering import Answer, take_answer
from thoughtforge.config import load_config
from thoughtforge.core.project import open_project
from thoughtforge.core.state import read_chat
from thoughtforge.stack.api import PrefectApi


@pytest.mark.slow
def test_the_answer_that_loses_the_race_is_kept_and_says_when_it_is_read(
    tmp_path: Path,
    cli_env: dict[str, str],
    cli_config: Callable[..., Path],
    prefect_api_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before, the page's answer, a moment behind the CLI's `distill`, showed "The Prefect API …
    failed while handing over the input" (HTTP 409, or "the waiting run refused the input")."""
    config_file = cli_config()
    slow = {"text": DISTILLATION, "sleep": 8}  # the run is busy when the page's answer comes
    script = _script(tmp_path / "s.yaml", **{"brain-dump-intake": slow})
    (tmp_path / "bd.md").write_text(BRAIN_DUMP)
    env = {**cli_env, "THOUGHTFORGE_SCRIPT": str(script)}
    worker = start_cli(env, config_file, "run", str(tmp_path / "bd.md"))
    try:
        _wait_for(
            lambda: (
                (tmp_path / "projects").exists()
                and any(not p.name.startswith(".") for p in (tmp_path / "projects").iterdir())
                and waiting_run(prefect_api_url, _only_project(tmp_path).name) is not None
            ),
            "the brain dump wait",
        )
        project_dir = _only_project(tmp_path)
        config = load_config(config_file)
        project = open_project(config, project_dir.name)
        real_wait = PrefectApi._wait_for_schema

        def cli_answers_first(api: PrefectApi, run: object) -> None:
            """The page has found the run waiting; the CLI's answer lands before its own."""
            cli = run_cli(env, config_file, "distill", project.id)
            assert cli.returncode == 0, cli.stdout + cli.stderr
            real_wait(api, run)  # type: ignore[arg-type]

        monkeypatch.setattr(PrefectApi, "_wait_for_schema", cli_answers_first)
        monkeypatch.setenv("PREFECT_API_URL", prefect_api_url)
        words = "The budget is firm: 15k, not a cent more."
        outcome = take_answer(config, config_file, project, Answer(action="send", message=words))
        assert outcome.delivery == "kept"
        assert outcome.note.startswith("Kept: another answer reached the run")
        assert "the AI reads it at its next call" in outcome.note
        assert "Prefect" not in outcome.note
        said = [m.content for m in read_chat(project_dir) if m.role == "human"]
        assert said.count(words) == 1
        assert worker.poll() is None, "the run goes on with the CLI's answer"
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
