"""The real Claude Code, Codex and Gemini CLI drive ThoughtForge's projects against a fake model
API, each configured exactly as `config.yaml.example` configures it: a code project and a plan
project reach `done`; the tokens recorded are the tokens the fake reported; a budget stops a
Codex run; a denied write, an API 400 and a 401 each end in one line that names the cause."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.agent_clis.conftest import CLIS, Bench
from tests.agent_clis.model_answers import CALC, TEST_CALC, Write
from thoughtforge.adapters.agents.kinds import CLI_KINDS
from thoughtforge.core.project_log import read_events
from thoughtforge.core.spend.ledger import read_usage
from thoughtforge.core.state import read_chat, read_status
from thoughtforge.models import HaltReason, Phase

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
CODE_BRAIN_DUMP = (
    "I need a small Python library called calc that adds and multiplies integers: add(2, 3) "
    "gives 5 and mul(2, 3) gives 6. No dependencies please."
)
WEDDING = (REPO / "examples" / "wedding-plan.md").read_text()


def _run(bench: Bench, cli: str, brain_dump: str, config: Path | None = None) -> Path:
    """`thoughtforge run <brain dump> --auto-confirm` with `cli`; the project it made."""
    (bench.tmp_path / "brain-dump.md").write_text(brain_dump)
    brain_dump_file = str(bench.tmp_path / "brain-dump.md")
    result = bench.thoughtforge(cli, "run", brain_dump_file, "--auto-confirm", config=config)
    assert "Traceback" not in result.stdout + result.stderr, result.stdout + result.stderr
    root = bench.tmp_path / "projects"
    [project] = [p for p in root.iterdir() if not p.name.startswith(".")]
    return project


def _halt(project: Path) -> str:
    status = read_status(project)
    said = [m.content for m in read_chat(project) if m.role == "system"]
    return f"{status.phase} {status.halt_reason}: {said[-2:]}"


def _halted_agent_failure(project: Path) -> str:
    status = read_status(project)
    assert (status.phase, status.halt_reason) == (Phase.HALTED, HaltReason.AGENT_FAILURE)
    reason = _halt(project)
    assert "exit code" not in reason and "stuck" not in reason.lower() and "\x1b" not in reason
    return reason


def _assert_tokens_are_the_fakes(project: Path, bench: Bench) -> None:
    ledger = read_usage(project).total
    tokens_in, tokens_out = bench.api.billed()
    assert ledger.estimated_calls == 0, ledger
    assert ledger.tokens_in == pytest.approx(tokens_in, rel=0.01)
    assert ledger.tokens_out == pytest.approx(tokens_out, rel=0.01)


@pytest.mark.parametrize("cli", CLIS)
def test_a_code_project_reaches_done_through_the_real_cli(cli: str, bench: Bench) -> None:
    project = _run(bench, cli, CODE_BRAIN_DUMP)
    assert read_status(project).phase is Phase.DONE, _halt(project)
    assert (project / "calc.py").read_text() == CALC  # written by the CLI's own tool
    assert (project / "test_calc.py").read_text() == TEST_CALC
    traced = (project / "docs" / "traceability.md").read_text()
    for test in ("test_calc.py::test_ac_1_add", "test_calc.py::test_ac_2_mul"):
        assert test in traced, traced  # each criterion with its locked, passing test
    assert "No evidence" not in traced and "passed" in traced, traced
    assert "code-build" in bench.api.steps()
    _assert_tokens_are_the_fakes(project, bench)


@pytest.mark.parametrize("cli", CLIS)
def test_a_plan_project_reaches_done_through_the_real_cli(cli: str, bench: Bench) -> None:
    project = _run(bench, cli, WEDDING)
    assert read_status(project).phase is Phase.DONE, _halt(project)
    assert (project / "docs" / "plan.md").stat().st_size > 0
    assert not {"code-build", "code-fix"} & set(bench.api.steps())
    _assert_tokens_are_the_fakes(project, bench)


def test_a_budget_stops_a_codex_run(bench: Bench) -> None:
    config = bench.config("codex", budget={"max_tokens": 40_000})
    project = _run(bench, "codex", CODE_BRAIN_DUMP, config)
    status = read_status(project)
    assert (status.phase, status.halt_reason) == (Phase.HALTED, HaltReason.BUDGET_EXHAUSTED)
    spent = read_usage(project).total.tokens
    assert spent == pytest.approx(sum(bench.api.billed()), rel=0.01)
    assert spent < 40_000  # stopped before the call that could pass it, not after


@pytest.mark.parametrize("cli", CLIS)
def test_an_api_400_halts_with_the_apis_own_words(cli: str, bench: Bench) -> None:
    bench.api.fail(400, "the fake model refuses this request (code 4711)")
    reason = _halted_agent_failure(_run(bench, cli, CODE_BRAIN_DUMP))
    assert "the fake model refuses this request (code 4711)" in reason, reason


def test_a_401_that_claude_would_retry_for_minutes_halts_at_its_first_retry(
    bench: Bench,
) -> None:
    bench.api.fail(401, "invalid x-api-key")
    project = _run(bench, "claude", CODE_BRAIN_DUMP)
    reason = _halted_agent_failure(project)
    assert "refused its login (401 authentication_failed)" in reason, reason
    assert "set ANTHROPIC_API_KEY" in reason, reason
    assert len(bench.api.exchanges) <= 3  # stopped at the first retry, not after ten


@pytest.mark.parametrize("cli", ["codex", "gemini"])
def test_a_401_halts_at_once_with_the_apis_words_and_how_to_log_in(cli: str, bench: Bench) -> None:
    bench.api.fail(401, "invalid api key (code 4712)")
    project = _run(bench, cli, CODE_BRAIN_DUMP)
    reason = _halted_agent_failure(project)
    assert "invalid api key (code 4712)" in reason, reason
    assert CLI_KINDS[cli].login_hint in reason, reason
    calls = [e for e in read_events(project) if e.get("event") == "agent_call"]
    assert len(calls) == 1  # no retry: a refused key stays refused


@pytest.mark.parametrize("cli", CLIS)
def test_a_denied_write_halts_naming_what_was_refused(cli: str, bench: Bench) -> None:
    outside = Path(f"/etc/thoughtforge-denied-{bench.tmp_path.name}.txt")
    bench.api.wander = (Write(str(outside), "not the project's\n"),)
    try:
        project = _run(bench, cli, CODE_BRAIN_DUMP)
        assert not outside.exists()
    finally:
        outside.unlink(missing_ok=True)
    reason = _halted_agent_failure(project)
    assert "refused" in reason and str(outside) in reason, reason
    assert "may edit files in the project folder and run" in reason, reason
    builds = [
        e
        for e in read_events(project)
        if e.get("event") == "agent_call" and e.get("step") == "code-build"
    ]
    assert len(builds) == 1  # halted at once, not retried


def test_a_plan_projects_agent_with_write_flags_is_refused_before_its_first_call(
    bench: Bench,
) -> None:
    config = bench.config("codex")
    data = yaml.safe_load(config.read_text())
    data["agents"]["available"]["codex"]["flags"] = ["--approve-for-me"]
    config.write_text(yaml.safe_dump(data))
    project = _run(bench, "codex", WEDDING, config)
    reason = _halted_agent_failure(project)
    assert "--approve-for-me" in reason and "brain-dump-intake" in reason, reason
    assert bench.api.exchanges == []  # the model was never called
