"""Life after done through the CLI: a change request that touches one plan section rebuilds only
that section and polishes again as revision 2; history names every step; rollback restores a
polish iteration and Phase 3's end, and a later `polish` continues from there."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import git
import pytest
import yaml

from tests.flows.conftest import run_cli
from tests.flows.test_pipeline import DEMO_STEPS, REPO, _flow_runs_of, _only_project
from thoughtforge.adapters.agents.scripted import DEMO_SCRIPT
from thoughtforge.config import load_config
from thoughtforge.core.project import open_project
from thoughtforge.core.revisions import REVISION_TAG_PREFIX, read_revisions
from thoughtforge.core.run_lock import hold_run_lock
from thoughtforge.core.state import read_polish_state, read_status, read_thread
from thoughtforge.models import Phase
from thoughtforge.phases.revision_text import split_sections

pytestmark = pytest.mark.slow

OLD_CRITERION = "The budget lists each cost and a 10% contingency."
NEW_CRITERION = "The budget lists each cost, totals at most 12k, and keeps a 10% contingency."
NEW_BUDGET = (
    "| Objective | Plan | Assessment |\n| --- | --- | --- |\n"
    "| Stay within 12k. | Budget: 12k in total, each cost listed, 10% contingency. | "
    "Spend stays at or below 12k. |"
)
CHANGE = "The budget is 12k now, not 15k."
UNRESOLVED_BUDGET = NEW_BUDGET.replace("Spend stays at or below 12k.", "TBD")
"""The reviser's first answer: the validator refuses it as Phase 3 would, and it is asked again."""


def revision_script(path: Path) -> Path:
    """The plan pipeline's answers, a revised spec on the second proposal, and the reviser's."""
    steps: dict[str, Any] = dict(DEMO_STEPS)
    original = steps["spec-building"]["text"]
    steps["spec-building"] = [
        {"text": original},
        {"text": original.replace(OLD_CRITERION, NEW_CRITERION)},
    ]
    steps["plan-revise-sections"] = {"text": '{"sections": ["Resources & Budget"]}'}
    steps["plan-revise"] = [{"text": UNRESOLVED_BUDGET}, {"text": NEW_BUDGET}]
    path.write_text(yaml.safe_dump({"steps": steps}))
    return path


def _sections(plan: str) -> dict[str, str]:
    return {part.heading: part.text for part in split_sections(plan)}


def test_a_change_request_rebuilds_one_section_then_rollback_restores_earlier_steps(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path], prefect_api_url: str
) -> None:
    config = cli_config()
    env = {**cli_env, "THOUGHTFORGE_SCRIPT": str(revision_script(tmp_path / "script.yaml"))}
    brain_dump = str(REPO / "examples" / "wedding-plan.md")
    assert run_cli(env, config, "run", brain_dump, "--auto-confirm").returncode == 0
    project = _only_project(tmp_path)
    plan = project / "docs" / "plan.md"
    first = plan.read_text()

    # Refused while a run works on the project, naming it; the words are not lost (not taken).
    handle = open_project(load_config(config), project.name)
    with hold_run_lock(handle):
        busy = run_cli(env, config, "revise", project.name, CHANGE)
    assert busy.returncode == 1 and "is working on it" in busy.stderr
    assert "· done'" in busy.stderr.replace("\n", "")  # the run's name
    assert read_status(project).phase is Phase.DONE

    revised = run_cli(env, config, "revise", project.name, CHANGE, "--auto-confirm")
    assert revised.returncode == 0, revised.stdout + revised.stderr
    assert "Revision 2" in revised.stdout
    assert read_status(project).phase is Phase.DONE
    before, after = _sections(first), _sections(plan.read_text())
    assert before.keys() == after.keys()
    changed = [heading for heading in before if before[heading] != after[heading]]
    assert changed == ["Resources & Budget"]
    assert "12k in total" in after["Resources & Budget"]
    assert "TBD" not in plan.read_text()
    asked = sorted((project / ".scripted-agent" / "prompts").glob("*-plan-revise.md"))
    assert len(asked) == 2, "the refused section was asked for again"
    reasked = asked[1].read_text()
    assert "the revised plan would be refused" in reasked and "'TBD'" in reasked

    constraints = (project / "docs" / "constraints.md").read_text()
    assert NEW_CRITERION in constraints
    superseded = constraints.split("## Superseded", 1)[1]
    assert f"### Revision 2\n\n- Acceptance Criteria: {OLD_CRITERION}" in superseded

    thread = [m.content for m in read_thread(project)]
    assert any(text.startswith("— Revision 2 begins —") for text in thread)
    assert CHANGE in thread
    [shown] = [t for t in thread if t.startswith("What this proposal changes")]
    assert "docs/constraints.md — changed in 1 place" in shown  # in words, with its heading
    assert "under “Acceptance Criteria”" in shown
    assert "cost{+, totals at most 12k,+} and{+ keeps+} a 10% contingency." in shown

    repo = git.Repo(project)
    assert f"{REVISION_TAG_PREFIX}2" in [t.name for t in repo.tags]
    status = run_cli(env, config, "status", project.name).stdout
    assert "revision" in status and " 2 " in status.split("revision", 1)[1][:20]
    assert read_polish_state(project).trajectory, "Phase 4 polished revision 2"
    names = [r.name for r in _flow_runs_of(project.name)]
    assert any(name.endswith("· done · revision 2") for name in names), names

    listed = run_cli(env, config, "history", project.name, "--named").stdout
    for name in ("phase1", "phase2", "phase3", "polish-1", "phase4", "r2-phase3", "r2-polish-1"):
        assert name in listed, listed
    shown_diff = run_cli(env, config, "history", project.name, "--diff", "r2-phase3").stdout
    assert "12k in total" in shown_diff

    # Hand-edited spec: status says the deliverable is stale.
    with (project / "docs" / "spec.md").open("a") as spec:
        spec.write("\nOne more thought.\n")
    assert "docs/spec.md changed since the deliverable was built" in run_cli(
        env, config, "status", project.name
    ).stdout.replace("\n", " ")

    unknown = run_cli(env, config, "rollback", project.name, "--to", "polish-9")
    assert unknown.returncode == 1 and "Valid: phase1, phase2" in unknown.stderr.replace("\n", "")

    # The hand edit is no commit's: the rollback is refused, naming it, until it is kept.
    refused = run_cli(env, config, "rollback", project.name, "--to", "polish-1")
    assert refused.returncode == 1 and "docs/spec.md" in refused.stderr
    assert (project / "docs" / "spec.md").read_text().endswith("One more thought.\n")
    kept = run_cli(env, config, "rollback", project.name, "--to", "polish-1", "--keep-edits")
    assert kept.returncode == 0, kept.stdout + kept.stderr
    assert "One more thought." in repo.git.show("HEAD~1:docs/spec.md")  # the person's commit
    assert plan.read_text() == first
    # revision 1's files: the page, status and the board say revision 1, not 2
    assert (read_revisions(project).shown, read_revisions(project).current) == (1, 2)
    assert "revision" not in run_cli(env, config, "status", project.name).stdout

    commits = len(list(repo.iter_commits()))
    back = run_cli(env, config, "rollback", project.name, "--to", "polish-1")
    assert back.returncode == 0, back.stdout + back.stderr
    assert plan.read_text() == first
    assert read_status(project).phase is Phase.POLISHING
    state = read_polish_state(project)
    assert state.iteration == 1 and [e.iteration for e in state.trajectory] == [1]
    assert not state.completed
    assert len(list(repo.iter_commits())) == commits + 1  # a new commit, nothing rewritten
    assert repo.head.commit.summary.startswith("Rollback to polish-1")
    assert any(
        t.startswith("Rolled back to polish-1") for t in (m.content for m in read_thread(project))
    )
    logged = [json.loads(line) for line in (project / "thoughtforge.log").read_text().splitlines()]
    assert any(e["event"] == "rollback" and e["to"] == "polish-1" for e in logged)

    polished = run_cli(env, config, "polish", project.name)
    assert polished.returncode == 0, polished.stdout + polished.stderr
    state = read_polish_state(project)
    assert [e.iteration for e in state.trajectory] == [1, 2] and state.completed
    assert read_status(project).phase is Phase.DONE

    to_build = run_cli(env, config, "rollback", project.name, "--to", "phase3")
    assert to_build.returncode == 0, to_build.stdout + to_build.stderr
    assert read_status(project).phase is Phase.POLISHING
    assert read_polish_state(project).iteration == 0
    assert plan.read_text() == first


def test_the_demo_agent_applies_a_change_request_where_it_shows(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path], prefect_api_url: str
) -> None:
    """The README's first command's agent: a revision puts the new figure in the spec proposal
    and in the rebuilt sections, and quotes the request; a rebuild that changes nothing says so."""
    config = cli_config()
    brain_dump = str(REPO / "examples" / "wedding-plan.md")
    assert run_cli(cli_env, config, "run", brain_dump, "--auto-confirm").returncode == 0
    project = _only_project(tmp_path)
    plan = project / "docs" / "plan.md"
    first = plan.read_text()
    assert "15k" in first and "12k" not in first

    revised = run_cli(cli_env, config, "revise", project.name, CHANGE, "--auto-confirm")
    assert revised.returncode == 0, revised.stdout + revised.stderr
    [shown] = [
        m.content for m in read_thread(project) if m.content.startswith("What this proposal")
    ]
    assert "12k" in shown and f"“{CHANGE}”" in shown
    spec = (project / "docs" / "spec.md").read_text().split("## Superseded", 1)[0]
    assert "budget is 12k all in" in spec and "budget is 15k" not in spec
    assert f"- Changed at the person's request: “{CHANGE}”" in spec
    before, after = _sections(first), _sections(plan.read_text())
    changed = [heading for heading in before if before[heading] != after[heading]]
    assert changed == ["Summary", "Goals & Scope"], changed
    assert f"“{CHANGE}”" in after["Summary"]
    assert "budget is 12k all in" in after["Goals & Scope"]
    assert "15k" not in after["Goals & Scope"]
    assert "changed nothing" not in revised.stdout
    repo = git.Repo(project)
    [built] = [c for c in repo.iter_commits() if c.summary.startswith("Phase 3 complete: revision")]
    trace = repo.git.show(f"{built.hexsha}:docs/traceability.md")  # a restore point
    assert "budget is 12k all in" in trace and "budget is 15k" not in trace
    words = "\n".join(m.content for m in read_thread(project))
    assert "rebuilding 2 of 7 plan sections (Summary, Goals & Scope)" in words

    # A reviser that gives every section back as it was: the build says it changed nothing.
    echo = {"steps": {**yaml.safe_load(DEMO_SCRIPT.read_text())["steps"]}}
    echo["steps"]["plan-revise"] = {"echo_after": "The section as it is now:\n\n"}
    script = tmp_path / "echo.yaml"
    script.write_text(yaml.safe_dump(echo))
    kept = plan.read_text()
    again = run_cli(
        cli_env, config, "revise", project.name, "Add a photographer.", "--auto-confirm",
        THOUGHTFORGE_SCRIPT=str(script),
    )  # fmt: skip
    assert again.returncode == 0, again.stdout + again.stderr
    assert plan.read_text() == kept
    assert "Revision 3's rebuild changed nothing in plan.md" in again.stdout.replace("\n", " ")
    said = "\n".join(m.content for m in read_thread(project))
    assert "Revision 3: the rebuild changed nothing in plan.md (Summary came back word" in said
    assert git.Repo(project).git.log("--format=%s").count("(plan.md unchanged)") == 1
    listed = run_cli(cli_env, config, "history", project.name, "--named").stdout
    assert "Phase 3 end: the rebuild changed nothing" in " ".join(listed.split())
    shown = run_cli(cli_env, config, "history", project.name, "--diff", "r2-phase3").stdout
    assert shown.startswith("docs/plan.md — changed in 2 places")
    assert "budget is [-15k-]{+12k+} all in" in shown
