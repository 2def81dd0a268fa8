"""Phase 2 engine: a project in spec_building with a locked intent, and the scripted agent."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import git
import pytest
import yaml

from tests.conftest import BRAIN_DUMP
from tests.phases.conftest import Script, prompts, step_script
from tests.plugins.code.test_discovery import flagged
from tests.plugins.code.test_scorecard import card
from tests.polish_setup import calls
from thoughtforge.config import Config, load_config
from thoughtforge.core.creation import create_project
from thoughtforge.core.git_repo import commit
from thoughtforge.core.project import Project
from thoughtforge.core.state import ChatMessage, read_chat, read_status, write_chat, write_status
from thoughtforge.errors import ConfigError, ThoughtForgeError, TransitionError
from thoughtforge.models import DeliverableType, HaltReason, Phase
from thoughtforge.phases import human_decisions, intake
from thoughtforge.phases import spec as spec_phase
from thoughtforge.phases.spec import DISCOVERY_SECTION, RETRY_NOTICE, SpecIncomplete
from thoughtforge.phases.spec_proposal import NO_CRITERIA, SPEC_SECTIONS
from thoughtforge.prompting import SectionedText

INTENT = """# Intent: Wedding

## Deliverable Type
Plan — event

## Objective
Plan a small countryside wedding for 60 guests.

## Assumptions
- Guests travel by car.

## Constraints
- Budget 15k

## Unknowns
- Exact date in June

## Open Questions
1. Is the budget per person or in total?
"""

CRITERIA = ["Every guest has a seat", "A rain plan names an indoor space", "Costs stay under 15k"]


def proposal(
    resolved: str = (
        "- Exact date in June: the 14th, the only Saturday the barn is free.\n"
        "- Is the budget per person or in total? In total, as the intent says 15k."
    ),
    criteria: str = "\n".join(f"- {c}" for c in CRITERIA),
) -> str:
    return (
        "## Deliverable Overview\nA plan for a relaxed 60-guest wedding.\n\n"
        "## Deliverable Structure\n### Venue\nBarn and terrace.\n"
        "```text\n## not a heading: inside a fence\n```\n\n"
        "## Key Decisions\n- Buffet, because it suits a vegetarian menu.\n\n"
        f"## Resolved Unknowns\n{resolved}\n\n"
        "## Dependencies\n- Barn booking\n\n"
        "## Scope Boundaries\n- Honeymoon is out of scope\n\n"
        "## Priorities\n- Guests' comfort first\n\n"
        "## Exclusions\n- Do not flag font choices\n\n"
        "## Severity Definitions\n- critical: a guest without a seat\n\n"
        f"## Acceptance Criteria\n{criteria}\n"
    )


NO_CRITERIA_SECTION = proposal().split("## Acceptance Criteria")[0]


@pytest.fixture
def script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Script:
    return step_script(tmp_path, monkeypatch, "spec-building")


@pytest.fixture
def project(config: Config) -> Project:
    return spec_building_project(config)


def spec_building_project(
    config: Config, deliverable_type: DeliverableType = DeliverableType.PLAN
) -> Project:
    """What confirm_intent leaves behind: intent.md committed, empty chat, spec_building."""
    project = create_project(config, brain_dump=BRAIN_DUMP)
    (project.docs_dir / "intent.md").write_text(INTENT)
    status = read_status(project.dir).model_copy(
        update={
            "phase": Phase.SPEC_BUILDING,
            "project_name": "Wedding",
            "deliverable_type": deliverable_type,
        }
    )
    write_status(project.dir, status)
    write_chat(project.dir, [])
    commit(project.dir, "Lock intent.md")
    return project


def say_ai(project: Project, text: str) -> None:
    chat = read_chat(project.dir)
    chat.append(ChatMessage(role="ai", content=text, phase=Phase.SPEC_BUILDING))
    write_chat(project.dir, chat)


def head(project: Project) -> str:
    return str(git.Repo(project.dir).head.commit.summary)


def test_propose_presents_the_proposal_from_intent_and_conversation(
    config: Config, script: Script, project: Project
) -> None:
    script(proposal())
    intake.add_human_message(project, "Please keep it under 20 pages.")

    result = spec_phase.propose(project, config)

    assert result.acceptance_criteria == CRITERIA
    assert result.unresolved == []
    assert result.section("key decisions") == "- Buffet, because it suits a vegetarian menu."
    assert "## not a heading: inside a fence" in result.section("Deliverable Structure")
    (prompt,) = prompts(project)
    assert INTENT in prompt and "Human:\nPlease keep it under 20 pages." in prompt
    last = read_chat(project.dir)[-1]
    assert (last.role, last.content, last.phase) == ("ai", proposal().strip(), Phase.SPEC_BUILDING)
    assert read_status(project.dir).phase is Phase.SPEC_BUILDING
    assert spec_phase.latest_proposal(project) == result


def test_missing_acceptance_criteria_is_retried_once_with_a_notice(
    config: Config, script: Script, project: Project
) -> None:
    script(NO_CRITERIA_SECTION, proposal())

    result = spec_phase.propose(project, config)

    assert result.acceptance_criteria == CRITERIA
    assert calls(project) == {"spec-building": 2}
    assert "had no `## Acceptance Criteria` section" in prompts(project)[1]
    chat = read_chat(project.dir)
    (kept,) = (project.dir / "rejected").iterdir()
    assert kept.read_text() == NO_CRITERIA_SECTION.strip() + "\n"
    assert [(m.role, m.content) for m in chat] == [
        (
            "system",
            "The agent's answer was unusable: it had no `## Acceptance Criteria` section (kept in "
            f"rejected/{kept.name}).",
        ),
        ("system", RETRY_NOTICE),
        ("ai", proposal().strip()),
    ]


def test_acceptance_criteria_missing_twice_raises_spec_incomplete(
    config: Config, script: Script, project: Project
) -> None:
    script(NO_CRITERIA_SECTION)

    with pytest.raises(SpecIncomplete, match="Acceptance Criteria"):
        spec_phase.propose(project, config)

    assert calls(project) == {"spec-building": 2}
    roles = [(m.role, m.content == RETRY_NOTICE) for m in read_chat(project.dir)]
    assert roles == [("system", False), ("system", True), ("system", False), ("ai", False)]
    assert read_status(project.dir).phase is Phase.SPEC_BUILDING


def test_confirm_is_refused_while_items_are_unresolved_and_nothing_is_written(
    config: Config, project: Project
) -> None:
    resolved = "- Is the budget per person or in total? UNRESOLVED: which one do you mean?"
    say_ai(project, proposal(resolved=resolved))

    outcome = spec_phase.confirm_spec(project, config)

    assert not outcome.accepted
    assert outcome.remaining == [
        "Is the budget per person or in total? UNRESOLVED: which one do you mean?",
        "Exact date in June",
    ]
    message = read_chat(project.dir)[-1]
    assert message.role == "ai"
    assert all(f"- {item}" in message.content for item in outcome.remaining)
    assert not (project.docs_dir / "spec.md").exists()
    assert not (project.docs_dir / "constraints.md").exists()
    assert head(project) == "Lock intent.md"
    assert read_status(project.dir).phase is Phase.SPEC_BUILDING
    assert spec_phase.latest_proposal(project) is not None


def test_open_items_accepted_as_unresolved_are_written_into_the_spec_as_such(
    config: Config, project: Project
) -> None:
    """SmolLM2 listed open items nothing could clear (the match needs 90 % similarity): the
    person had no way on but to accept them as they are."""
    resolved = "- The budget question: UNRESOLVED: which one do you mean?"
    say_ai(project, proposal(resolved=resolved))

    outcome = spec_phase.confirm_spec(project, config, accept_unresolved=True)

    assert outcome.accepted and read_status(project.dir).phase is Phase.BUILDING
    spec = SectionedText.parse((project.docs_dir / "spec.md").read_text())
    resolved_section = spec.get("Resolved Unknowns") or ""
    assert "- UNRESOLVED: Exact date in June (accepted unresolved by the human)" in resolved_section
    assert (
        "- UNRESOLVED: The budget question: UNRESOLVED: which one do you mean? "
        "(accepted unresolved by the human)" in resolved_section
    )


def test_accepting_unresolved_items_still_needs_acceptance_criteria(
    config: Config, project: Project
) -> None:
    say_ai(project, proposal(resolved="- nothing", criteria=""))
    outcome = spec_phase.confirm_spec(project, config, accept_unresolved=True)
    assert not outcome.accepted and outcome.remaining == [NO_CRITERIA]
    assert not (project.docs_dir / "spec.md").exists()


def test_a_project_can_be_terminated_at_a_human_step_and_switched_to_another_agent(
    config: Config, project: Project
) -> None:
    with pytest.raises(ConfigError, match=r"agent 'nope' is not in agents\.available"):
        human_decisions.switch_agent(project, config, "nope")
    config.agents.available["ghost"] = config.agent("demo").model_copy(
        update={"command": "no-such-agent-xyz"}
    )
    with pytest.raises(ThoughtForgeError, match="'no-such-agent-xyz' is not on PATH"):
        human_decisions.switch_agent(project, config, "ghost")

    switched = human_decisions.switch_agent(project, config, "recorder")

    assert read_status(project.dir).agent == switched.agent == "recorder"
    assert read_chat(project.dir)[-1].content == "The agent is now 'recorder' (was 'demo')."
    terminated = human_decisions.apply(project, "terminate")
    assert (terminated.phase, terminated.halt_reason) == (
        Phase.HALTED,
        HaltReason.HUMAN_TERMINATED,
    )
    assert terminated.halted_from is Phase.SPEC_BUILDING
    with pytest.raises(TransitionError, match="already terminated"):
        human_decisions.terminate(project)


def test_confirm_is_refused_without_any_acceptance_criterion(
    config: Config, project: Project
) -> None:
    say_ai(project, proposal(criteria="None"))

    outcome = spec_phase.confirm_spec(project, config)

    assert (outcome.accepted, outcome.remaining) == (False, [NO_CRITERIA])
    assert read_chat(project.dir)[-1].content == NO_CRITERIA
    assert not (project.docs_dir / "spec.md").exists()


def test_confirm_without_a_proposal_is_refused(config: Config, project: Project) -> None:
    assert spec_phase.latest_proposal(project) is None
    outcome = spec_phase.confirm_spec(project, config)
    assert not outcome.accepted and outcome.remaining
    assert read_status(project.dir).phase is Phase.SPEC_BUILDING


def test_a_paraphrased_item_is_unresolved_and_a_quoted_one_is_not(
    config: Config, project: Project
) -> None:
    say_ai(
        project,
        proposal(
            resolved="- **Exact date in June:** the 14th.\n- Budget question: total.",
        ),
    )

    latest = spec_phase.latest_proposal(project)

    assert latest is not None
    assert latest.unresolved == ["Is the budget per person or in total?"]


def test_confirm_locks_spec_and_constraints_and_starts_the_build(
    config: Config, project: Project
) -> None:
    say_ai(project, proposal())

    outcome = spec_phase.confirm_spec(project, config)

    assert (outcome.accepted, outcome.remaining) == (True, [])
    spec = SectionedText.parse((project.docs_dir / "spec.md").read_text())
    assert spec.preamble == "# Spec: Wedding"
    assert [s.heading for s in spec.sections] == list(SPEC_SECTIONS)
    assert spec.get("Dependencies") == "- Barn booking"
    constraints = SectionedText.parse((project.docs_dir / "constraints.md").read_text())
    assert [s.heading for s in constraints.sections] == [
        "Context",
        "Deliverable Type",
        "Priorities",
        "Exclusions",
        "Severity Definitions",
        "Scope",
        "Acceptance Criteria",
    ]
    assert constraints.get("Context") == "Plan a small countryside wedding for 60 guests."
    assert constraints.get("Deliverable Type") == "Plan"
    assert constraints.get("Exclusions") == "- Do not flag font choices"
    scope = constraints.get("Scope") or ""
    assert "### Venue" in scope and "Honeymoon is out of scope" in scope
    assert constraints.get("Acceptance Criteria") == "\n".join(f"- {c}" for c in CRITERIA)
    commit = git.Repo(project.dir).head.commit
    assert commit.summary == "Lock spec.md and constraints.md"
    assert {"docs/spec.md", "docs/constraints.md"} <= set(commit.stats.files)
    assert read_chat(project.dir) == []
    assert read_status(project.dir).phase is Phase.BUILDING


def test_a_write_failure_raises_and_the_phase_stays(config: Config, project: Project) -> None:
    say_ai(project, proposal())
    (project.docs_dir / "constraints.md").mkdir()

    with pytest.raises(OSError):
        spec_phase.confirm_spec(project, config)

    assert read_status(project.dir).phase is Phase.SPEC_BUILDING
    assert head(project) == "Lock intent.md"


# --- Open Source Discovery (code deliverables, `code.discovery: true`) -----------------------

Answers = Callable[[dict[str, list[str | dict[str, Any]]]], None]
SCORECARDS = json.dumps(
    {
        "recommendations": [
            card(),
            card(score=1, name="leftpad"),
            flagged("request", "archived", "deprecated in 2020"),
        ]
    }
)
QUALIFIED = "### httpx 0.27.0: HTTP client"
REJECTED = (
    "### Rejected\n\n- 'leftpad': scored 8 of 16, below the minimum of 10\n"
    "- 'request': red flag archived (deprecated in 2020)"
)


@pytest.fixture
def answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Answers:
    """The scripted agent's answers for several steps, each a list in call order."""

    def use(steps: dict[str, list[str | dict[str, Any]]]) -> None:
        entries = {
            step: [{"text": a} if isinstance(a, str) else a for a in replies]
            for step, replies in steps.items()
        }
        path = tmp_path / "script.yaml"
        path.write_text(yaml.safe_dump({"steps": entries}))
        monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(path))

    return use


@pytest.fixture
def discovering(write_config: Callable[..., Path]) -> Config:
    return load_config(write_config(code={"discovery": True}))


def spec_sections(project: Project) -> SectionedText:
    return SectionedText.parse((project.docs_dir / "spec.md").read_text())


def test_discovery_scores_a_code_proposals_dependencies_and_confirm_locks_them(
    discovering: Config, answers: Answers
) -> None:
    project = spec_building_project(discovering, DeliverableType.CODE)
    answers({"spec-building": [proposal()], "code-discovery": [SCORECARDS]})

    result = spec_phase.propose(project, discovering)

    assert calls(project) == {"spec-building": 1, "code-discovery": 1}
    spec_prompt, discovery_prompt = prompts(project)
    assert "language and version, operating systems, framework" in spec_prompt
    assert discovery_prompt.endswith(f"Spec proposal:\n\n{proposal().strip()}\n")
    shown = result.section(DISCOVERY_SECTION)
    assert QUALIFIED in shown and "Total: 16/16." in shown and shown.endswith(REJECTED)
    message = read_chat(project.dir)[-1]
    assert message.role == "ai" and message.content.endswith(f"## {DISCOVERY_SECTION}\n\n{shown}")

    assert spec_phase.confirm_spec(project, discovering).accepted

    assert calls(project) == {"spec-building": 1, "code-discovery": 1}
    spec = spec_sections(project)
    headings = list(SPEC_SECTIONS)
    headings.insert(headings.index("Dependencies") + 1, DISCOVERY_SECTION)
    assert [section.heading for section in spec.sections] == headings
    assert spec.get(DISCOVERY_SECTION) == shown


def test_without_the_config_switch_discovery_asks_nothing(config: Config, script: Script) -> None:
    project = spec_building_project(config, DeliverableType.CODE)
    script(proposal())

    result = spec_phase.propose(project, config)
    assert spec_phase.confirm_spec(project, config).accepted

    assert calls(project) == {"spec-building": 1}
    assert result.section(DISCOVERY_SECTION) == ""
    assert spec_sections(project).get(DISCOVERY_SECTION) is None


def test_a_plan_deliverable_never_runs_discovery(discovering: Config, script: Script) -> None:
    project = spec_building_project(discovering, DeliverableType.PLAN)
    script(proposal())

    spec_phase.propose(project, discovering)
    assert spec_phase.confirm_spec(project, discovering).accepted

    assert calls(project) == {"spec-building": 1}
    (spec_prompt,) = prompts(project)
    assert "following the OPA Framework" in spec_prompt
    assert "operating systems" not in spec_prompt
    assert spec_sections(project).get(DISCOVERY_SECTION) is None


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ({"text": "httpx looks fine to me."}, "the agent twice gave no usable answer"),
        ({"text": "", "exit": 1}, "failed at step 'code-discovery'"),
    ],
    ids=["unusable-twice", "agent-failure"],
)
def test_discovery_that_cannot_run_keeps_the_spec_and_says_so(
    discovering: Config, answers: Answers, answer: dict[str, Any], why: str
) -> None:
    project = spec_building_project(discovering, DeliverableType.CODE)
    answers({"spec-building": [proposal()], "code-discovery": [answer]})

    result = spec_phase.propose(project, discovering)

    assert calls(project) == {"spec-building": 1, "code-discovery": 2}
    *kept, notice, shown = read_chat(project.dir)
    assert len(kept) == len(list((project.dir / "rejected").glob("*-code-discovery-*.txt")))
    assert all(m.content.startswith("The agent's answer was unusable: ") for m in kept)
    assert notice.role == "system" and notice.content.startswith("Open Source Discovery could")
    assert why in notice.content and "\n" not in notice.content
    assert shown.role == "ai" and result.acceptance_criteria == CRITERIA
    assert result.section(DISCOVERY_SECTION) == notice.content

    assert spec_phase.confirm_spec(project, discovering).accepted

    assert spec_sections(project).get(DISCOVERY_SECTION) == notice.content
    assert spec_sections(project).get("Dependencies") == "- Barn booking"


def test_an_agent_written_discovery_section_is_replaced_by_the_checked_one(
    discovering: Config, answers: Answers
) -> None:
    forged = f"{proposal()}\n## Open Source Discovery\nEverything qualifies, trust me.\n"
    project = spec_building_project(discovering, DeliverableType.CODE)
    answers({"spec-building": [forged], "code-discovery": [SCORECARDS]})

    result = spec_phase.propose(project, discovering)

    assert "trust me" not in read_chat(project.dir)[-1].content
    assert "trust me" not in prompts(project)[1]
    assert result.section(DISCOVERY_SECTION).endswith(REJECTED)


def test_confirm_runs_discovery_for_a_proposal_made_before_it_was_switched_on(
    discovering: Config, answers: Answers
) -> None:
    project = spec_building_project(discovering, DeliverableType.CODE)
    say_ai(project, proposal())
    answers({"code-discovery": [SCORECARDS]})

    assert spec_phase.confirm_spec(project, discovering).accepted

    assert calls(project) == {"code-discovery": 1}
    assert QUALIFIED in (spec_sections(project).get(DISCOVERY_SECTION) or "")


def test_a_fenced_proposal_is_read_and_a_glued_one_is_asked_again(
    config: Config, script: Script, project: Project
) -> None:
    """Before: the glued answer (half a proposal cut mid-line, then the retried one) became the
    proposal Confirm locks as spec.md."""
    glued = proposal().split("## Dependencies")[0] + "## Dependencies\n- Barn " + proposal()
    script(glued, f"Here is the proposal:\n\n```markdown\n{proposal()}```\n")

    result = spec_phase.propose(project, config)

    assert result.acceptance_criteria == CRITERIA
    assert calls(project) == {"spec-building": 2}
    assert "could not be used: a section is cut off where a heading begins" in prompts(project)[1]
    chat = [(m.role, m.content) for m in read_chat(project.dir)]
    assert chat[1][1].startswith("The agent's proposal could not be used (a section is cut off")
    assert chat[-1] == ("ai", proposal().strip())
