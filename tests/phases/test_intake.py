"""Phase 1 engine: real projects, real git repos, and the scripted agent as the AI."""

from __future__ import annotations

import pytest

from tests.conftest import BRAIN_DUMP
from tests.fake_openai import FakeOpenAI, Reply
from tests.phases.conftest import Script, distillation, prompts
from tests.polish_setup import calls
from thoughtforge.config import Config, OpenAIAgentSpec
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import read_events
from thoughtforge.core.state import read_chat, read_status, write_status
from thoughtforge.errors import AgentFailure, PromptTooLarge
from thoughtforge.models import Phase
from thoughtforge.phases import intake
from thoughtforge.phases.intake import DistillationMalformed
from thoughtforge.phases.intent import INTENT_SECTIONS
from thoughtforge.prompting import SectionedText, estimate_tokens


def transitions(project: Project) -> list[tuple[str, str]]:
    return [
        (e["from_phase"], e["to_phase"])
        for e in read_events(project.dir)
        if e["event"] == "phase_transition"
    ]


def test_a_too_short_brain_dump_asks_for_more_without_calling_the_agent(
    config: Config, script: Script
) -> None:
    script(distillation())
    project = create_project(config, brain_dump="A wedding, maybe.")

    reply = intake.distill(project, config)

    assert reply.kind == "need_more"
    assert "at least 100" in reply.message
    assert calls(project) == {}
    assert read_status(project.dir).phase is Phase.BRAIN_DUMP
    last = read_chat(project.dir)[-1]
    assert (last.role, last.content, last.phase) == ("ai", reply.message, Phase.BRAIN_DUMP)


def test_distill_presents_the_six_sections_from_the_brain_dump_byte_for_byte(
    config: Config, script: Script
) -> None:
    script(distillation())
    dump = BRAIN_DUMP + " Ünïcode — {{resources}} $(rm -rf ~)\n\n  indented line  \n"
    project = create_project(config, brain_dump="Short start.")
    intake.add_human_message(project, dump)

    reply = intake.distill(project, config)

    assert reply.kind == "distillation" and reply.message == distillation().strip()
    assert read_status(project.dir).phase is Phase.HUMAN_REVIEW
    assert transitions(project) == [("brain_dump", "distilling"), ("distilling", "human_review")]
    (prompt,) = prompts(project)
    assert dump in prompt
    assert prompt.index("Short start.") < prompt.index(dump)
    ai = [m for m in read_chat(project.dir) if m.role == "ai"]
    assert [(m.content, m.phase) for m in ai] == [(reply.message, Phase.DISTILLING)]


def test_resources_reach_the_prompt_and_a_bad_file_is_announced_once(
    config: Config, script: Script
) -> None:
    script(distillation())
    project = create_project(config, brain_dump=BRAIN_DUMP)
    (project.resources_dir / "venue.md").write_text("The barn seats 80.")
    (project.resources_dir / "scan.bin").write_bytes(b"\xff\xfe\x00garbage")

    intake.distill(project, config)
    intake.add_human_message(project, "The budget is 18k, not 15k, because my parents help out.")
    intake.distill(project, config)

    assert all("### venue.md\n\nThe barn seats 80." in p for p in prompts(project))
    notices = [m.content for m in read_chat(project.dir) if m.role == "system"]
    assert len(notices) == 1 and notices[0].startswith("File 'scan.bin' could not be read")
    assert read_status(project.dir).phase is Phase.HUMAN_REVIEW


def test_a_malformed_distillation_is_asked_again_once_then_fails(
    config: Config, script: Script
) -> None:
    script("## Objective\nOnly this.\n")
    project = create_project(config, brain_dump=BRAIN_DUMP)

    with pytest.raises(DistillationMalformed, match="it has no ## Deliverable Type") as raised:
        intake.distill(project, config)

    assert raised.value.reply == "## Objective\nOnly this."
    assert calls(project) == {"brain-dump-intake": 2}
    first, second = prompts(project)
    assert "could not be used" not in first
    assert (
        'Your previous answer (it began: "## Objective Only this.") could not be used: it has no '
        "## Deliverable Type, ## Assumptions"
    ) in second
    assert read_status(project.dir).phase is Phase.DISTILLING
    chat = read_chat(project.dir)
    assert [m.role for m in chat] == ["human", "system", "system"]
    kept = [p.relative_to(project.dir).as_posix() for p in (project.dir / "rejected").iterdir()]
    assert len(kept) == 2 and all(
        p.endswith("-brain-dump-intake-1.txt") or p.endswith("-2.txt") for p in kept
    )
    for message, path in zip(chat[1:], sorted(kept), strict=True):
        assert message.content == (
            "The agent's answer was unusable: it has no ## Deliverable Type, ## Assumptions, "
            f"## Constraints, ## Unknowns, ## Open Questions section (kept in {path})."
        )
        assert (project.dir / path).read_text() == "## Objective\nOnly this.\n"


def test_a_resumed_distillation_is_asked_at_a_higher_temperature_than_the_refused_ones(
    config: Config,
) -> None:
    """At temperature 0 every re-ask and every resume returned byte-identical answers."""
    with FakeOpenAI() as server:
        config.agents.available["local"] = OpenAIAgentSpec.model_validate(
            {"type": "openai", "base_url": f"{server.url}/v1", "model": "m", "temperature": 0}
        )
        server.script(Reply("### Objective\nOnly this."))
        project = create_project(config, brain_dump=BRAIN_DUMP, agent="local")
        with pytest.raises(DistillationMalformed):
            intake.distill(project, config)
        server.script(Reply(distillation()))
        intake.distill(project, config)
    temperatures = [body["temperature"] for body in server.bodies]
    assert temperatures == pytest.approx([0.0, 0.3, 0.6])
    assert "grammar" not in server.bodies[0], "no grammar unless section_grammar is set"


def test_a_distillation_fixed_on_the_second_ask_is_presented(
    config: Config, script: Script
) -> None:
    script("Sure! Here is my summary.", distillation())
    project = create_project(config, brain_dump=BRAIN_DUMP)

    reply = intake.distill(project, config)

    assert reply.kind == "distillation" and calls(project) == {"brain-dump-intake": 2}
    assert read_status(project.dir).phase is Phase.HUMAN_REVIEW


def test_sections_at_any_heading_level_and_case_are_taken_and_stored_as_level_two(
    config: Config, script: Script
) -> None:
    """SmolLM2 wrote all six sections as `###`; only `##` was accepted and the re-ask never
    said so. A real sub-heading inside a section stays a sub-heading."""
    written = (
        distillation()
        .replace("## Objective", "### OBJECTIVE")
        .replace("## Deliverable Type", "# deliverable type:")
        .replace("## Constraints\n", "#### Constraints\n### Money\n")
    )
    script(written)
    project = create_project(config, brain_dump=BRAIN_DUMP)

    reply = intake.distill(project, config)

    assert calls(project) == {"brain-dump-intake": 1}
    document = SectionedText.parse(reply.message)
    assert document.missing(INTENT_SECTIONS) == []
    assert document.get("Constraints") == "### Money\n- Budget 15k\n- Vegetarian menu"
    assert "## OBJECTIVE" in reply.message


def test_more_than_five_open_questions_keeps_the_first_five(config: Config, script: Script) -> None:
    script(distillation(questions=7))
    project = create_project(config, brain_dump=BRAIN_DUMP)

    reply = intake.distill(project, config)

    questions = SectionedText.parse(reply.message).get("Open Questions")
    assert questions == "\n".join(f"- Question {n}?" for n in range(1, 6))
    assert SectionedText.parse(reply.message).get("Unknowns") == "- Exact date in June"
    capped = [e for e in read_events(project.dir) if e["event"] == "open_questions_capped"]
    assert [(e["asked"], e["kept"]) for e in capped] == [(7, 5)]


def test_agent_failure_propagates_and_leaves_the_phase_to_the_flow(
    config: Config, script: Script
) -> None:
    script({"text": "", "exit": 1, "stderr": "model overloaded"})
    project = create_project(config, brain_dump=BRAIN_DUMP)

    with pytest.raises(AgentFailure, match="model overloaded"):
        intake.distill(project, config)

    assert read_status(project.dir).phase is Phase.DISTILLING


def test_the_conversation_is_cut_to_the_window_keeping_the_brain_dump(
    config: Config, script: Script
) -> None:
    script(distillation())
    config.agent("demo").context_window_tokens = 900
    project = create_project(config, brain_dump=BRAIN_DUMP)
    for n in range(1, 9):
        intake.add_human_message(project, f"Correction {n}: " + "more detail " * 40)

    intake.distill(project, config)

    (prompt,) = prompts(project)
    assert BRAIN_DUMP in prompt and "Correction 8:" in prompt
    assert "Correction 1:" not in prompt
    notices = [m.content for m in read_chat(project.dir) if m.role == "system"]
    assert len(notices) == 1 and "left out" in notices[0]
    assert any(e["event"] == "context_truncated" for e in read_events(project.dir))


def test_room_for_the_answer_is_kept_and_a_window_too_small_for_the_prompt_is_named(
    config: Config, script: Script
) -> None:
    """A 712-token prompt went to a 512-token window, with no room kept for the answer."""
    script(distillation())
    config.agent("demo").context_window_tokens = 1_400
    config.agent("demo").max_tokens = 500
    project = create_project(config, brain_dump=BRAIN_DUMP)
    for n in range(1, 9):
        intake.add_human_message(project, f"Correction {n}: " + "more detail " * 40)

    intake.distill(project, config)

    (prompt,) = prompts(project)
    assert estimate_tokens(prompt) <= 900 and "Correction 8:" in prompt
    assert "Correction 1:" not in prompt

    config.agent("demo").context_window_tokens = 512
    config.agent("demo").max_tokens = 256
    with pytest.raises(PromptTooLarge, match=r"context window \(512 tokens, 256 of them kept"):
        intake.distill(project, config)
    assert len(prompts(project)) == 1, "nothing was sent"


def test_realign_drops_turns_after_the_last_substantive_correction_but_keeps_them_on_file(
    config: Config, script: Script
) -> None:
    script(*(distillation(objective=f"Version {n}.") for n in range(1, 5)))
    project = create_project(config, brain_dump=BRAIN_DUMP)
    intake.distill(project, config)
    correction = "Actually it is 80 guests and the budget is 20k."
    intake.add_human_message(project, correction)
    intake.distill(project, config)
    intake.add_human_message(project, "nope, wrong")
    intake.distill(project, config)

    reply = intake.realign(project, config)

    assert reply.kind == "distillation" and "Version 4." in reply.message
    last_prompt = prompts(project)[-1]
    assert BRAIN_DUMP in last_prompt and correction in last_prompt
    assert "Version 1." in last_prompt
    assert "nope, wrong" not in last_prompt
    assert "Version 2." not in last_prompt and "Version 3." not in last_prompt
    on_file = [m.content for m in read_chat(project.dir)]
    for kept in ("nope, wrong", "realign from here", distillation(objective="Version 3.").strip()):
        assert kept in on_file


def test_a_typed_realign_command_is_applied_and_not_recorded_twice(
    config: Config, script: Script
) -> None:
    script(distillation(objective="First."), distillation(objective="Second."))
    project = create_project(config, brain_dump=BRAIN_DUMP)
    intake.distill(project, config)
    intake.add_human_message(project, "hmm")
    intake.add_human_message(project, "Realign from here!")

    intake.realign(project, config)

    humans = [m.content for m in read_chat(project.dir) if m.role == "human"]
    assert humans == [BRAIN_DUMP, "hmm", "Realign from here!"]
    last_prompt = prompts(project)[-1]
    assert "hmm" not in last_prompt and "First." not in last_prompt


def test_a_too_short_brain_dump_found_in_distilling_goes_back_to_brain_dump(
    config: Config, script: Script
) -> None:
    script(distillation())
    project = create_project(config, brain_dump="Too short.")
    write_status(
        project.dir, read_status(project.dir).model_copy(update={"phase": Phase.DISTILLING})
    )

    assert intake.distill(project, config).kind == "need_more"

    assert read_status(project.dir).phase is Phase.BRAIN_DUMP
    assert calls(project) == {}


@pytest.mark.parametrize(
    "answer",
    [
        f"Here is the distillation:\n\n```markdown\n{distillation()}```\n",
        f"````md\n{distillation()}````\n\nLet me know if anything is off!",
        f"{distillation()}\nChanges made:\n- Added the budget to Constraints.\n",
    ],
    ids=["preamble-and-fence", "long-fence-and-sign-off", "changelog"],
)
def test_a_distillation_wrapped_as_models_write_it_is_read_as_the_deliverable_is(
    config: Config, script: Script, answer: str
) -> None:
    """Before: the fenced answer was refused twice (its headings were inside the fence) and the
    project halted at intake, while the same wrapping around a plan was stripped."""
    script(answer)
    project = create_project(config, brain_dump=BRAIN_DUMP)

    reply = intake.distill(project, config)

    assert reply.message == distillation().strip()
    assert calls(project) == {"brain-dump-intake": 1}
    stripped = [e for e in read_events(project.dir) if e["event"] == "outside_text_stripped"]
    assert [e["step"] for e in stripped] == ["brain-dump-intake"]


GLUED = (
    distillation().split("## Constraints")[0] + "## Constraints\n- The party is " + distillation()
)
"""Half an answer, cut mid-line, and the retried answer after it, as one text."""


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (GLUED, "a section is cut off where a heading begins inside its line"),
        (distillation() + "\n" + distillation(), "the answer holds the document more than once"),
        (
            distillation().replace("## Unknowns", "## Objective\nAgain.\n\n## Unknowns"),
            "the answer repeats the section(s) ## Objective",
        ),
    ],
    ids=["cut-and-glued", "twice", "one-section-twice"],
)
def test_a_glued_or_repeated_distillation_is_refused_and_asked_again(
    config: Config, script: Script, answer: str, why: str
) -> None:
    """Before: a cut stream glued to its retry became the distillation (12 sections), and
    Confirm locked it as docs/intent.md."""
    script(answer, distillation())
    project = create_project(config, brain_dump=BRAIN_DUMP)

    reply = intake.distill(project, config)

    assert reply.message == distillation().strip()
    assert calls(project) == {"brain-dump-intake": 2}
    assert f"could not be used: {why}" in prompts(project)[1]
    ai = [m.content for m in read_chat(project.dir) if m.role == "ai"]
    assert ai == [distillation().strip()], "only the usable answer reached the chat"


def test_a_note_of_the_agents_between_the_sections_stays_the_distillations_own(
    config: Config, script: Script
) -> None:
    """With no earlier version to tell it apart by, it is content, not a refusal."""
    noted = distillation().replace(
        "## Constraints", "Note: I have assumed the guests drive.\n\n## Constraints"
    )
    script(noted)
    project = create_project(config, brain_dump=BRAIN_DUMP)

    assert intake.distill(project, config).message == noted.strip()
