"""The real Claude Code, Codex and Gemini CLI drive ThoughtForge's projects against a fake model
API, each configured exactly as `config.yaml.example` configures it: a code project and a plan
project reach `done`; the tokens recorded are the tokens the fake reported; a budget stops a
Codex run; a denied write, an API 400 and a 401 each end in one line that names the cause."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.agent_clis.conftest import CLIS, cli_env
from tests.agent_clis.fake_model_api import FakeModelAPI
from tests.agent_clis.model_answers import CALC, TEST_CALC, Write
from tests.flows.conftest import run_cli
from thoughtforge.core import read_chat, read_status
from thoughtforge.core.project_log import read_events
from thoughtforge.core.spend import read_usage
from thoughtforge.models import HaltReason, Phase

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
CODE_BRAIN_DUMP = (
    "I need a small Python library called calc that adds and multiplies integers: add(2, 3) "
    "gives 5 and mul(2, 3) gives 6. No dependencies please."
)


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "projects"
    [project] = [p for p in root.iterdir() if not p.name.startswith(".")]
    return project


def _run(
    tmp_path: Path,
    cli: str,
    api: FakeModelAPI,
    config: Path,
    prefect_api_url: str,
    brain_dump: str,
) -> Path:
    (tmp_path / "brain-dump.md").write_text(brain_dump)
    env = cli_env(tmp_path / "home", cli, api, prefect_api_url)
    result = run_cli(env, config, "run", str(tmp_path / "brain-dump.md"), "--auto-confirm")
    assert "Traceback" not in result.stdout + result.stderr, result.stdout + result.stderr
    return _project(tmp_path)


def _halt(project: Path) -> str:
    status = read_status(project)
    said = [m.content for m in read_chat(project) if m.role == "system"]
    return f"{status.phase} {status.halt_reason}: {said[-2:]}"


def _assert_tokens_are_the_fakes(project: Path, api: FakeModelAPI) -> None:
    ledger = read_usage(project).total
    tokens_in, tokens_out = api.billed()
    assert ledger.estimated_calls == 0, ledger
    assert ledger.tokens_in == pytest.approx(tokens_in, rel=0.01)
    assert ledger.tokens_out == pytest.approx(tokens_out, rel=0.01)


@pytest.mark.parametrize("cli", CLIS)
def test_a_code_project_reaches_done_through_the_real_cli(
    cli: str,
    tmp_path: Path,
    fake_api: FakeModelAPI,
    example_config: Callable[..., Path],
    prefect_api_url: str,
) -> None:
    project = _run(tmp_path, cli, fake_api, example_config(cli), prefect_api_url, CODE_BRAIN_DUMP)
    assert read_status(project).phase is Phase.DONE, _halt(project)
    assert (project / "calc.py").read_text() == CALC  # written by the CLI's own tool
    assert (project / "test_calc.py").read_text() == TEST_CALC
    assert "code-build" in fake_api.steps()
    _assert_tokens_are_the_fakes(project, fake_api)


@pytest.mark.parametrize("cli", CLIS)
def test_a_plan_project_reaches_done_through_the_real_cli(
    cli: str,
    tmp_path: Path,
    fake_api: FakeModelAPI,
    example_config: Callable[..., Path],
    prefect_api_url: str,
) -> None:
    brain_dump = (REPO / "examples" / "wedding-plan.md").read_text()
    project = _run(tmp_path, cli, fake_api, example_config(cli), prefect_api_url, brain_dump)
    assert read_status(project).phase is Phase.DONE, _halt(project)
    assert (project / "docs" / "plan.md").stat().st_size > 0
    assert not any(e.step in ("code-build", "code-fix") for e in fake_api.exchanges)
    _assert_tokens_are_the_fakes(project, fake_api)


def test_a_budget_stops_a_codex_run(
    tmp_path: Path,
    fake_api: FakeModelAPI,
    example_config: Callable[..., Path],
    prefect_api_url: str,
) -> None:
    config = example_config("codex", budget={"max_tokens": 40_000})
    project = _run(tmp_path, "codex", fake_api, config, prefect_api_url, CODE_BRAIN_DUMP)
    status = read_status(project)
    assert (status.phase, status.halt_reason) == (Phase.HALTED, HaltReason.BUDGET_EXHAUSTED)
    spent = read_usage(project).total.tokens
    assert spent == pytest.approx(sum(fake_api.billed()), rel=0.01)
    assert spent < 40_000  # stopped before the call that could pass it, not after


@pytest.mark.parametrize("cli", CLIS)
def test_an_api_400_halts_with_the_apis_own_words(
    cli: str,
    tmp_path: Path,
    fake_api: FakeModelAPI,
    example_config: Callable[..., Path],
    prefect_api_url: str,
) -> None:
    fake_api.fail(400, "the fake model refuses this request (code 4711)")
    project = _run(tmp_path, cli, fake_api, example_config(cli), prefect_api_url, CODE_BRAIN_DUMP)
    status = read_status(project)
    assert (status.phase, status.halt_reason) == (Phase.HALTED, HaltReason.AGENT_FAILURE)
    reason = _halt(project)
    assert "the fake model refuses this request (code 4711)" in reason, reason
    assert "exit code" not in reason and "\x1b" not in reason


def test_a_401_that_claude_retries_is_bounded_by_the_call_deadline(
    tmp_path: Path,
    fake_api: FakeModelAPI,
    example_config: Callable[..., Path],
    prefect_api_url: str,
) -> None:
    fake_api.fail(401, "invalid x-api-key")
    config = example_config("claude")
    text = config.read_text().replace("call_timeout_seconds: 120", "call_timeout_seconds: 8")
    config.write_text(text)
    project = _run(tmp_path, "claude", fake_api, config, prefect_api_url, CODE_BRAIN_DUMP)
    status = read_status(project)
    assert (status.phase, status.halt_reason) == (Phase.HALTED, HaltReason.AGENT_FAILURE)
    reason = _halt(project)
    assert "timed out after 8s" in reason and "ANTHROPIC_API_KEY" in reason, reason


@pytest.mark.parametrize("cli", CLIS)
def test_a_denied_write_halts_naming_what_was_refused(
    cli: str,
    tmp_path: Path,
    fake_api: FakeModelAPI,
    example_config: Callable[..., Path],
    prefect_api_url: str,
) -> None:
    outside = Path(f"/etc/thoughtforge-denied-{tmp_path.name}.txt")
    fake_api.wander = (Write(str(outside), "not the project's\n"),)
    try:
        project = _run(
            tmp_path, cli, fake_api, example_config(cli), prefect_api_url, CODE_BRAIN_DUMP
        )
        assert not outside.exists()
    finally:
        outside.unlink(missing_ok=True)
    status = read_status(project)
    assert (status.phase, status.halt_reason) == (Phase.HALTED, HaltReason.AGENT_FAILURE)
    reason = _halt(project)
    named = "writing outside of the project" if cli == "codex" else str(outside)
    assert "refused" in reason and named in reason, reason
    assert "may edit files in the project folder and run" in reason, reason
    assert "stuck" not in reason.lower() and "exit code" not in reason
    builds = [
        e
        for e in read_events(project)
        if e.get("event") == "agent_call" and e.get("step") == "code-build"
    ]
    assert len(builds) == 1  # halted at once, not retried
