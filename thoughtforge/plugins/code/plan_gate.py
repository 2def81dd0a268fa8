"""The Plan Completeness Gate at Code-mode entry: which resource is the plan, and is it buildable.

Finding the plan is mechanical. The `.md` files in `resources/` (nested folders included, as Phase
1 reads them; hidden files and symlinks leading out of `resources/` never count) are taken in path
order. Exactly one is the plan, whatever it looks like. Of several, the first that looks like a
structured plan is: it has an OPA table header row (`| Objective | Plan | Assessment |`, any case)
or `##` headings for more than half of the sections of one plan template. Of several that all look
unstructured, none is taken and the gate is skipped: they are notes, and judging a note as a plan
would halt a good project as `plan_incomplete`.

Judging the plan is the agent's: the `plan-completeness` prompt gives it the spec's completeness
signals as guidance (not a scored rubric) and it answers pass or fail with reasons.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from thoughtforge.core.own_files import read_own_text
from thoughtforge.errors import UnusableReply, schema_problems
from thoughtforge.phases.reasking import ask_until_usable, reask
from thoughtforge.phases.resources import resource_files
from thoughtforge.plugins.plan.template_selection import TEMPLATES_DIR
from thoughtforge.prompting import PromptLibrary, SectionedText, heading_key, json_objects

PROMPT = "plan-completeness"
_OPA_HEADER = re.compile(
    r"^[ \t]*\|?[ \t]*objective[ \t]*\|[ \t]*plan[ \t]*\|[ \t]*assessment[ \t]*\|?[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)

Reason = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class CompletenessVerdict(BaseModel):
    """The agent's recommendation; a failing one must say why, for the human's halt message."""

    model_config = ConfigDict(extra="ignore")

    verdict: Literal["pass", "fail"]
    reasons: list[Reason] = []

    @field_validator("verdict", mode="before")
    @classmethod
    def _any_case(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @model_validator(mode="after")
    def _fail_has_reasons(self) -> CompletenessVerdict:
        if self.verdict == "fail" and not self.reasons:
            raise ValueError("a 'fail' verdict needs at least one reason")
        return self

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"


def find_plan(resources_dir: Path, templates_dir: Path = TEMPLATES_DIR) -> Path | None:
    """The plan document among the resources by the rule above; None skips the gate."""
    candidates = _markdown_files(resources_dir)
    if len(candidates) == 1:
        return candidates[0]
    headings = _template_headings(templates_dir)
    return next((path for path in candidates if _looks_like_plan(path, headings)), None)


def completeness_prompt(
    library: PromptLibrary, plan_text: str, refusal: UnusableReply | None = None
) -> str:
    """The gate's prompt; after an unusable answer, the same prompt saying what was wrong."""
    prompt = library.render(PROMPT, plan=plan_text)
    return prompt if refusal is None else reask(prompt, refusal)


def parse_verdict(text: str) -> CompletenessVerdict:
    """The first JSON object in the answer that is a verdict; `UnusableReply` saying why not."""
    meant: ValidationError | None = None
    for candidate in json_objects(text):
        try:
            return CompletenessVerdict.model_validate(candidate)
        except ValidationError as exc:
            if meant is None and "verdict" in candidate:
                meant = exc
    if meant is None:
        raise UnusableReply("it held no JSON object with a 'verdict' field", text)
    problems = schema_problems(meant)
    raise UnusableReply(f"its verdict does not fit the schema: {problems}", text)


def check_plan(
    plan_text: str,
    ask: Callable[[str], str],
    library: PromptLibrary,
    attempts: int,
    on_unusable: Callable[[int, UnusableReply], object] = lambda attempt, why: None,
) -> CompletenessVerdict:
    """Ask the agent until it gives a usable verdict; the last `UnusableReply` after `attempts`."""
    return ask_until_usable(
        ask,
        lambda refusal: completeness_prompt(library, plan_text, refusal),
        parse_verdict,
        attempts=attempts,
        on_unusable=on_unusable,
    )


def verdict_schema() -> dict[str, Any]:
    """The JSON schema of a verdict, sent to agents that constrain their output."""
    return CompletenessVerdict.model_json_schema()


def _markdown_files(resources_dir: Path) -> list[Path]:
    return [path for path in resource_files(resources_dir) if path.suffix.lower() == ".md"]


def _template_headings(templates_dir: Path) -> list[set[str]]:
    """The `##` headings of each plan template, as `heading_key`s."""
    headings = []
    for template in sorted(templates_dir.glob("*.hbs")):
        try:
            source = template.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # the plan builder reports a broken template; here it just cannot match
        keys = {heading_key(section.heading) for section in SectionedText.parse(source).sections}
        if keys:
            headings.append(keys)
    return headings


def _looks_like_plan(path: Path, template_headings: list[set[str]]) -> bool:
    try:
        text = read_own_text(path, errors="replace")
    except OSError:
        return False
    if _OPA_HEADER.search(text):
        return True
    present = {heading_key(section.heading) for section in SectionedText.parse(text).sections}
    return any(2 * len(keys & present) > len(keys) for keys in template_headings)
