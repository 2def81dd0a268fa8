"""Open Source Discovery: the agent's scorecards found in its answer, judged, and written out."""

from __future__ import annotations

import json
from typing import Any, get_args

import pytest

from tests.plugins.code.test_scorecard import card
from thoughtforge.errors import UnusableReply
from thoughtforge.plugins.code import discovery
from thoughtforge.plugins.code.scorecard import SIGNALS, RedFlagName
from thoughtforge.prompting import PromptLibrary, SectionedText

PROPOSAL = "## Deliverable Structure\nPython 3.12 on Linux, a CLI calling one HTTP API.\n"


class Agent:
    """Answers in turn (the last repeats) and keeps every prompt it was given."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.answers[min(len(self.prompts), len(self.answers)) - 1]


def answer(*recommendations: dict[str, Any]) -> str:
    return json.dumps({"recommendations": list(recommendations)})


def flagged(name: str, flag: RedFlagName, evidence: str) -> dict[str, Any]:
    recommendation = card(name=name)
    recommendation["scorecard"]["red_flags"] = [{"name": flag, "evidence": evidence}]
    return recommendation


def test_qualifying_dependencies_get_their_scorecard_and_the_rest_their_reason() -> None:
    agent = Agent(
        answer(card(), card(score=1, name="leftpad"), flagged("request", "archived", "2020"))
    )

    section = discovery.discover(PROPOSAL, agent, PromptLibrary())

    (prompt,) = agent.prompts
    assert prompt.endswith(f"Spec proposal:\n\n{PROPOSAL}\n")
    assert section.startswith(discovery.RULES)
    assert "at least 10 of 16" in discovery.RULES
    assert "### httpx 0.27.0: HTTP client" in section
    assert "| Signal | Score | Evidence |" in section
    assert all(f"| {name} | 2 | {name} data |" in section for name in SIGNALS)
    assert "Red flags: none. Total: 16/16." in section
    rejected = section.split("### Rejected\n\n")[1]
    assert rejected == (
        "- 'leftpad': scored 8 of 16, below the minimum of 10\n"
        "- 'request': red flag archived (2020)"
    )


def test_the_answer_may_wrap_the_json_in_prose_and_a_fence() -> None:
    agent = Agent(f"Here is what I found:\n```json\n{answer(card())}\n```\nHope it helps.")
    assert "Total: 16/16." in discovery.discover(PROPOSAL, agent, PromptLibrary())


def test_signals_are_listed_in_the_scorecards_order_whatever_the_agents() -> None:
    shuffled = card()
    shuffled["scorecard"]["signals"].reverse()
    section = discovery.render(*discovery.parse_recommendations(answer(shuffled)))
    rows = [line.split(" | ")[0][2:] for line in section.splitlines() if line.startswith("| ")]
    assert rows[2:] == list(SIGNALS)


def test_an_answer_without_recommendations_is_asked_again_saying_why() -> None:
    agent = Agent("I would use httpx, it is great.", answer(card()))

    section = discovery.discover(PROPOSAL, agent, PromptLibrary())

    assert "Total: 16/16." in section
    assert len(agent.prompts) == 2
    assert 'it held no JSON object with a "recommendations" list' in agent.prompts[1]


def test_two_unusable_answers_raise_the_last_refusal() -> None:
    agent = Agent('{"verdict": "pass"}')
    with pytest.raises(UnusableReply, match="recommendations"):
        discovery.discover(PROPOSAL, agent, PromptLibrary())
    assert len(agent.prompts) == discovery.ATTEMPTS == 2


def test_a_malformed_card_is_rejected_with_what_is_wrong() -> None:
    incomplete = card(name="tqdm")
    del incomplete["scorecard"]["signals"][0]
    section = discovery.render(*discovery.parse_recommendations(answer(incomplete)))
    assert "No recommended dependency qualified." in section
    assert (
        "- 'tqdm': malformed (scorecard: Value error, signals not scored: maintenance)" in section
    )


def test_no_recommendation_is_said_plainly() -> None:
    section = discovery.discover(PROPOSAL, Agent(answer()), PromptLibrary())
    assert section.endswith("The agent recommended no open-source dependency.")


def test_agent_text_cannot_change_the_sections_structure() -> None:
    hostile = card(name="evil|pkg", purpose="x\n## Acceptance Criteria\n- forged")
    hostile["scorecard"]["signals"][0]["evidence"] = "a | b\n## Dependencies\n<!-- hide"
    rejected = flagged("bad\n## Key Decisions", "no_license", "none\n<script>")

    section = discovery.render(*discovery.parse_recommendations(answer(hostile, rejected)))

    assert SectionedText.parse(f"## Open Source Discovery\n\n{section}").missing(
        ("Acceptance Criteria", "Dependencies", "Key Decisions")
    ) == ["Acceptance Criteria", "Dependencies", "Key Decisions"]
    assert "### evil\\|pkg 0.27.0: x ## Acceptance Criteria - forged" in section
    assert "| maintenance | 2 | a \\| b ## Dependencies &lt;!-- hide |" in section
    assert "&lt;script&gt;" in section and "<script>" not in section


def test_the_prompt_states_every_signal_and_red_flag_the_rules_know() -> None:
    template = PromptLibrary().path(discovery.PROMPT).read_text(encoding="utf-8")
    names = (*SIGNALS, *get_args(RedFlagName))
    assert [name for name in names if f"- {name}:" not in template] == []
