"""What a reviewer agent must answer in Phase 4, and how that answer is read out of its text.

Agents wrap JSON in prose or Markdown fences, so the answer is searched for an object that fits the
schema rather than parsed as a whole; of several, the last complete one is the review. The
severity counts are always derived from the issues: a reviewer's own tally is ignored, because the
guards must not depend on its arithmetic.

An answer that fits the schema can still be no review: a reviewer that copies the prompt's example
(`"description": "..."`, `"location": "<section>"`) has reported nothing, and its echo must never
count as a critical issue; such an answer is malformed like any other (`placeholder_problem`), so
it is re-asked with the reason. The same finding listed twice counts once (`merge_duplicates`).

Each deliverable type's plugin names its schema (its reviewer's `Review`, a subclass of `Review`
here); the plan's and the code's are below.
"""

from __future__ import annotations

import re
import reprlib
from collections.abc import Iterable
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from thoughtforge.errors import UnusableReply
from thoughtforge.models import Counts, Issue, Severity
from thoughtforge.phases.quoted_evidence import Quote, quotes_of
from thoughtforge.prompting import json_objects

R = TypeVar("R", bound="Review")


class MalformedReview(UnusableReply):
    """The reviewer's answer holds no object matching the review schema."""


class Dismissal(BaseModel):
    """A review's word that an open finding of the tracker does not stand, and why."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(min_length=1, max_length=20)
    reason: str = Field(min_length=1, max_length=2000)

    @field_validator("reason")
    @classmethod
    def _says_why(cls, reason: str) -> str:
        """ "n/a", "ok" or "fixed" dismiss nothing: a dismissal stands instead of a fix, so its
        reason is the only evidence there is."""
        if sum(not word.isdigit() for word in _REASON_WORD.findall(reason)) < _REASON_WORDS:
            raise ValueError(
                f"a dismissal must say why in words (at least {_REASON_WORDS}), not {reason!r}"
            )
        return reason


_REASON_WORD = re.compile(r"[^\W_]{2,}")
_REASON_WORDS = 3


class Confirmation(BaseModel):
    """A review's word that an open finding a fix changed is resolved, quoting the text of the
    deliverable that resolves it (ThoughtForge checks the quote is there)."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(max_length=20)
    quote: str = Field(default="", max_length=2000)


class CheckedConfirmation(Confirmation):
    found: bool
    """Whether the quote is in the deliverable the review read (`fix_evidence.quoted_in`)."""


class Review(BaseModel):
    """What every review holds: the issues, with the shared severities the guards count, and
    the open findings it was shown that it dismisses (`tracker`), and the evidence it names."""

    model_config = ConfigDict(extra="ignore")

    issues: list[Issue]
    dismissed: list[Dismissal] = []
    resolved: list[Confirmation] = []
    """Optional: a reviewer that confirms nothing is read as before."""

    @field_validator("resolved", mode="before")
    @classmethod
    def _confirmations_only(cls, value: object) -> object:
        """A confirmation that is not an id with a quote ("F1" alone) confirms nothing, and it
        does not make the rest of the review unusable."""
        if not isinstance(value, list):
            return []
        return [
            item
            for item in value
            if isinstance(item, dict)
            and isinstance(item.get("id"), str)
            and isinstance(item.get("quote", ""), str)
            and 0 < len(item["id"]) <= 20
            and len(item.get("quote", "")) <= 2000
        ]

    evidence: list[Quote] = []
    """For a document: each acceptance criterion it meets, with the passage that meets it
    (`phases.quoted_evidence`); `done` needs a checked one for every criterion."""

    @field_validator("evidence", mode="before")
    @classmethod
    def _readable_items(cls, raw: object) -> list[Quote]:
        return quotes_of(raw)

    @property
    def counts(self) -> Counts:
        return Counts.of(self.issues)


class PlanReview(Review):
    pass


class TestResults(BaseModel):
    model_config = ConfigDict(extra="ignore")

    total: int = Field(ge=0)
    passed: int = Field(ge=0)
    failed: int = Field(ge=0)


class CodeReview(Review):
    tests: TestResults


def parse_review(text: str, schema: type[R], echoes: Iterable[str] = ()) -> R:
    """Return the last complete JSON object in `text` that fits `schema` and reports real
    findings; `echoes` are the example values of the prompt the reviewer was given
    (`prompt_echoes`). The last, never the first: an answer that repeats last round's review
    (`{"issues": []}`) before this round's findings is read by its findings, a draft by its
    correction; an answer whose last object was cut off is re-asked (`CutOffReply`)."""
    failures: list[tuple[dict[str, object], ValidationError]] = []
    for candidate in json_objects(text, latest_first=True):
        try:
            review = schema.model_validate(candidate)
        except ValidationError as exc:
            failures.append((candidate, exc))
            continue
        problem = placeholder_problem(review.issues, frozenset(map(_plain, echoes)))
        if problem:
            raise MalformedReview(problem)
        return review
    if not failures:
        raise MalformedReview("no JSON object found")
    raise MalformedReview(_describe(_most_relevant(failures)))


_EXAMPLE_VALUE = re.compile(r'"(\w+)"\s*:\s*"([^"\n]{0,80})"')
_ANGLE_PLACEHOLDER = re.compile(r"<[^<>\n]{1,40}>")
_GENERIC = frozenset(
    {
        *("description", "issue", "problem", "finding", "string", "str", "text", "todo", "tbd"),
        *("placeholder", "example", "na", "n/a", "none", "null", "lorem ipsum", "location"),
        *("section", "recommendation", "severity", "critical|medium|minor", "path", "path:line"),
        *("file", "line", "describe the issue", "your description here", "issue description"),
        *("description of the issue", "describe the problem", "short description"),
        *("brief description", "example issue", "sample issue", "issue 1", "problem description"),
        *("recommendation here", "your recommendation", "how to fix it", "fix suggestion"),
    }
)

_PLACE_WORDS = frozenset({"path:line", "file:line", "path", "file", "line", "section", "location"})
"""A location that is only the name of what belongs there."""


def prompt_echoes(prompt: str, schema: type[Review]) -> frozenset[str]:
    """What a reviewer copying its instructions would write: the string values of the prompt's
    JSON example (`"location": "<section>"`), and the schema's own descriptions."""
    found = {
        value
        for line in prompt.splitlines()
        if '"issues"' in line
        for _, value in _EXAMPLE_VALUE.findall(line)
    }
    issue = Issue.model_json_schema()
    found.update(str(issue.get("description", "")).split("\n"))
    for prop in issue.get("properties", {}).values():
        found.add(str(prop.get("description", "")))
    found.add("|".join(s.value for s in Severity))
    return frozenset(text for text in found if text.strip()) - {schema.__name__}


def placeholder_problem(issues: list[Issue], echoes: frozenset[str] = frozenset()) -> str | None:
    """Why an issue is no finding: its text is a placeholder or the prompt's own wording."""
    for n, issue in enumerate(issues):
        for field in ("description", "location", "recommendation"):
            value = getattr(issue, field)
            if value and _is_placeholder(value, echoes, strict=field != "location"):
                return (
                    f"issues[{n}].{field} is {reprlib.repr(value)}, a placeholder or the "
                    "prompt's own example, not a finding: write the real problem, where it is "
                    'and how to fix it, or leave the issue out ({"issues": []} is a valid answer)'
                )
    return None


def _is_placeholder(value: str, echoes: frozenset[str], strict: bool) -> bool:
    plain = _plain(value)
    if not any(ch.isalnum() for ch in plain) or plain in echoes:
        return True
    angled = _ANGLE_PLACEHOLDER.fullmatch(value.strip())
    if strict:
        return plain in _GENERIC or angled is not None
    return plain in _PLACE_WORDS or (angled is not None and plain in _GENERIC)


def _plain(text: str) -> str:
    """Lower case, spaces collapsed, quotes, brackets and end punctuation trimmed."""
    return " ".join(text.lower().split()).strip(" \"'`<>[](){}.,;:*_-")


def merge_duplicates(issues: list[Issue]) -> tuple[list[Issue], int]:
    """The review's issues with each finding once (same words, same place; the most severe
    kept), and how many were merged away."""
    rank = {Severity.CRITICAL: 0, Severity.MEDIUM: 1, Severity.MINOR: 2}
    kept: dict[tuple[str, str], Issue] = {}
    for issue in issues:
        key = (_plain(issue.description), _plain(issue.location).lstrip("#§ "))
        seen = kept.get(key)
        if seen is None or rank[issue.severity] < rank[seen.severity]:
            kept[key] = (
                issue if seen is None else seen.model_copy(update={"severity": issue.severity})
            )
    return list(kept.values()), len(issues) - len(kept)


def still_standing(issues: list[Issue]) -> tuple[list[Issue], int]:
    """The review's issues less those whose words say they are gone ("Resolved: …", "Fixed —
    …"): a reviewer listing what it saw fixed reports no issue there, and how many there were."""
    standing = [issue for issue in issues if not _SAID_GONE.match(issue.description)]
    return standing, len(issues) - len(standing)


_SAID_GONE = re.compile(
    r"\W*(?:resolved|fixed|addressed|no longer an issue)\b[*_]*\s*(?::|[-–—](?=\s))", re.I
)


def _most_relevant(failures: list[tuple[dict[str, object], ValidationError]]) -> ValidationError:
    """An object with an `issues` key was meant as the review; its errors say what to fix."""
    return next((exc for value, exc in failures if "issues" in value), failures[0][1])


def _describe(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in first["loc"])
    reason = f"{where.lstrip('.') or 'review'}: {first['msg']}"
    if first["type"] != "missing":
        reason += f" (got {reprlib.repr(first['input'])})"
    more = exc.error_count() - 1
    return reason + (f"; and {more} more" if more else "")
