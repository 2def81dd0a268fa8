"""What the fake model answers to each ThoughtForge step, as a model that follows the prompt would.

The step is recognised from the prompt's own first heading (`# Code build`, `# Plan review`…):
the model never sees ThoughtForge's environment. Plan steps answer as the demo agent's script does
(its templates filled with the brain dump's words); code steps build a tiny Python library
(`calc.py` and its test) with the CLI's own tools, one tool call a turn, then run the project's
test command and say what they did. A request that is no ThoughtForge step (a CLI's own side
request: a title, a routing choice) gets a short answer.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from string import Template

import yaml

from thoughtforge.adapters.agents.demo_evidence import with_evidence
from thoughtforge.adapters.agents.demo_words import human_turns, words_for
from thoughtforge.adapters.agents.scripted import DEMO_SCRIPT

HEADINGS = {
    "Brain dump intake": "brain-dump-intake",
    "Spec building": "spec-building",
    "Plan build": "plan-build",
    "Plan review": "plan-review",
    "Plan fix": "plan-fix",
    "Plan completeness": "plan-completeness",
    "Plan revision: which sections does the change touch?": "plan-revise-sections",
    "Plan revision: rewrite one section": "plan-revise",
    "Code build: plan the steps": "code-steps",
    "Code build: make the tests pass": "code-test-fix",
    "Code build": "code-build",
    "Code review": "code-review",
    "Code fix": "code-fix",
    "Open Source Discovery": "code-discovery",
}
PROBE = "Reply with one word: ready."
CODING_STEPS = frozenset({"code-build", "code-test-fix", "code-fix"})
CODE_ASK = re.compile(r"python library", re.IGNORECASE)
"""What a brain dump asking for software says (the tests' code brain dump does)."""
_HEADING = re.compile(r"^# (.+?)\s*$", re.MULTILINE)

CALC = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
TEST_CALC = (
    "from calc import add, mul\n\n\ndef test_ac_1_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_ac_2_mul():\n    assert mul(2, 3) == 6\n"
)
"""One test per acceptance criterion, named after it, as the build prompt asks."""
FILES = {"calc.py": CALC, "test_calc.py": TEST_CALC}
_TEST_COMMAND = re.compile(
    r"Test command: `([^`]+)`|so `([^`]+)` runs every\s+test|`([^`]+)` must succeed"
)
BUILT = "Built calc.py (add and mul) and test_calc.py; the tests pass."

CODE_INTENT = """## Deliverable Type
Code — Python library

## Objective
A Python library, calc, that adds and multiplies integers.

## Assumptions
- Python 3.11.

## Constraints
- No dependencies.

## Unknowns
None

## Open Questions
None
"""
CODE_SPEC = """## Deliverable Overview
A Python library that adds and multiplies integers.

## Deliverable Structure
Language: Python 3.11 on Linux. Tools: pytest (python -m pytest), logging from the standard
library. No dependencies. One module `calc.py` with its tests in `test_calc.py`.

## Key Decisions
- Plain functions, no classes.

## Resolved Unknowns
None

## Dependencies
None

## Scope Boundaries
- Integers only.

## Priorities
- Correct results first.

## Exclusions
- Do not flag wording style.

## Severity Definitions
- Critical: a wrong result.
- Medium: a missing test.
- Minor: unclear naming.

## Acceptance Criteria
- add(2, 3) is 5
- mul(2, 3) is 6
"""


@dataclass(frozen=True)
class Write:
    path: str
    text: str


@dataclass(frozen=True)
class Run:
    command: str


Action = Write | Run


@dataclass(frozen=True)
class Turn:
    """The model's next turn: a tool call to make, or its final text."""

    action: Action | None = None
    text: str = ""


def step_of(prompt: str) -> str | None:
    """The ThoughtForge step a prompt is, from its first known heading."""
    if PROBE in prompt:
        return "doctor-probe"
    for heading in _HEADING.findall(prompt):
        if heading in HEADINGS:
            return HEADINGS[heading]
    return None


def next_turn(
    prompt: str, tool_results: int, workdir: Path | None, wander: tuple[Action, ...] = ()
) -> Turn:
    """The turn after `tool_results` answered tool calls in this conversation; a coding step
    first makes the `wander` calls (what a model straying from its task would try)."""
    step = step_of(prompt)
    if step in CODING_STEPS:
        actions: list[Action] = [*wander, *(Write(name, text) for name, text in FILES.items())]
        command = _TEST_COMMAND.search(prompt)
        if command is not None:
            actions.append(Run(next(group for group in command.groups() if group)))
        if tool_results < len(actions):
            return Turn(action=actions[tool_results])
        return Turn(text=BUILT)
    return Turn(text=text_answer(step, prompt, workdir))


def text_answer(step: str | None, prompt: str, workdir: Path | None) -> str:
    if step is None:
        return "ok"
    if step == "doctor-probe":
        return "ready"
    coding = _is_code(prompt, workdir)
    if step == "brain-dump-intake" and coding:
        return CODE_INTENT
    if step == "spec-building" and coding:
        return CODE_SPEC
    if step == "code-steps":
        return json.dumps({"steps": [{"title": "Build calc", "details": "calc.py and tests"}]})
    if step == "plan-completeness":
        return json.dumps({"verdict": "pass", "reasons": ["decided and detailed"]})
    if step == "code-review":
        return json.dumps({"issues": [], "tests": _tests_in(prompt)})
    if step == "code-discovery":
        return json.dumps({"packages": []})
    return _demo_answer(step, prompt, workdir)


def _is_code(prompt: str, workdir: Path | None) -> bool:
    if workdir is not None:
        try:
            intent = (workdir / "docs" / "intent.md").read_text(encoding="utf-8")
        except OSError:
            intent = ""
        if intent:
            return "Code —" in intent
    return "Code — Python library" in prompt or CODE_ASK.search(human_turns(prompt)) is not None


def _tests_in(prompt: str) -> dict[str, int]:
    found = re.search(r"(\d+) passed, (\d+) failed, (\d+) in total", prompt)
    if found is None:
        return {"total": 0, "passed": 0, "failed": 0}
    passed, failed, total = (int(n) for n in found.groups())
    return {"total": total, "passed": passed, "failed": failed}


def _demo_answer(step: str, prompt: str, workdir: Path | None) -> str:
    """The demo agent's answer to a plan step: its script's text, template or echo, with the
    evidence its script quotes for a review."""
    entry = yaml.safe_load(DEMO_SCRIPT.read_text(encoding="utf-8"))["steps"].get(step)
    if entry is None:
        return "ok"
    if "text" in entry:
        text = str(entry["text"])
    elif "echo_after" in entry:
        text = prompt.rpartition(entry["echo_after"])[2]
    else:
        template = DEMO_SCRIPT.parent / entry["template"]
        words = words_for(prompt, workdir or Path("/nonexistent"))
        placeholders = words.placeholders(for_json=template.suffix == ".json")
        text = Template(template.read_text(encoding="utf-8")).substitute(placeholders)
    if "evidence" in entry:
        text = with_evidence(text, prompt, entry["evidence"])
    return text
