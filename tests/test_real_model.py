"""A real small model (SmolLM2-135M-Instruct, llama.cpp's server) runs the wedding example through
the HTTP agent with structured output on. It must reach `done` or halt with a reason a person can
act on (never a traceback, never a dead end), and no JSON step's answer may be unreadable: the
schema the server was sent holds the model to it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.real_model import (
    JSON_STEPS,
    figures_table,
    llama_server,
    run_wedding,
    skip_reason,
    step_figures,
)
from thoughtforge.core.state import read_chat
from thoughtforge.models import HaltReason, Phase

pytestmark = pytest.mark.slow

ACTIONABLE = {
    HaltReason.ANSWER_UNUSABLE: "What helps: another agent",
    HaltReason.GUARD_MAX_ITERATIONS: "override",
    HaltReason.GUARD_FIX_REGRESSION: "override",
    HaltReason.GUARD_HALLUCINATION: "override",
    HaltReason.GUARD_FABRICATION: "override",
    HaltReason.FIX_OUTPUT_INVALID: "resume",
    HaltReason.BUILD_INCOMPLETE: "provide input",
    HaltReason.PHASE3_OUTPUT_INCOMPLETE: "resume",
    HaltReason.SPEC_INCOMPLETE: "acceptance criteria",
    HaltReason.REVIEW_MALFORMED: "What helps: another agent",
}
"""Each halt a run may end in, and the words of its chat message that tell the person what to do."""


@pytest.fixture(scope="module")
def model_url(tmp_path_factory: pytest.TempPathFactory) -> object:
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    with llama_server(tmp_path_factory.mktemp("llama") / "server.log") as url:
        yield url


@pytest.mark.timeout(1200)  # the model decodes on the CPU: minutes when the machine is shared
def test_smollm2_takes_the_wedding_plan_to_done_or_an_actionable_halt(
    model_url: str, tmp_path: Path
) -> None:
    run = run_wedding(tmp_path, model_url, structured=True)
    figures = step_figures(run.project_dir)
    print(f"\n{run.phase} {run.halt_reason} in {run.seconds:.0f} s\n{figures_table(figures)}")

    assert "Traceback" not in run.output, run.output
    if run.phase is not Phase.DONE:
        assert run.phase is Phase.HALTED, run.output
        assert run.halt_reason in ACTIONABLE, run.output
        said = [m.content for m in read_chat(run.project_dir) if m.role == "system"]
        assert any(ACTIONABLE[run.halt_reason] in text for text in said), said[-3:]
    for step in JSON_STEPS & figures.keys():
        assert figures[step].unreadable == 0, f"{step}: a JSON answer did not parse or fit"
        assert figures[step].cut_off == 0, f"{step}: a JSON answer was cut off"
    assert figures["brain-dump-intake"].asks >= 1
