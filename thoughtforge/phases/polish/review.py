"""What a reviewer agent must answer in Phase 4, and how that answer is read out of its text.

Agents wrap JSON in prose or Markdown fences, so the answer is searched for an object that fits the
schema rather than parsed as a whole. The severity counts are always derived from the issues: a
reviewer's own tally is ignored, because the guards must not depend on its arithmetic.

Each deliverable type's plugin names its schema (its reviewer's `Review`, a subclass of `Review`
here); the plan's and the code's are below.
"""

from __future__ import annotations

import reprlib
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from thoughtforge.errors import UnusableAnswer
from thoughtforge.models import Counts, Issue
from thoughtforge.prompting import json_objects

R = TypeVar("R", bound="Review")


class MalformedReview(UnusableAnswer):
    """The reviewer's answer holds no object matching the review schema."""


class Review(BaseModel):
    """What every review holds: the issues, with the shared severities the guards count."""

    model_config = ConfigDict(extra="ignore")

    issues: list[Issue]

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


def parse_review(text: str, schema: type[R]) -> R:
    """Return the first JSON object in `text` that fits `schema`."""
    failures: list[tuple[dict[str, object], ValidationError]] = []
    for candidate in json_objects(text):
        try:
            return schema.model_validate(candidate)
        except ValidationError as exc:
            failures.append((candidate, exc))
    if not failures:
        raise MalformedReview("no JSON object found")
    raise MalformedReview(_describe(_most_relevant(failures)))


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
