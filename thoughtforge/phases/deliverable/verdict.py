"""What a deliverable validator is given and what it answers: one typed verdict, whoever asks.

Phase 3 (a build), Phase 4 (a fix) and a revision all hand the agent's answer to the plugin's
validator as a `Candidate` and act on the `DeliverableVerdict` alone: accepted, with the document
to write (what lay outside it stripped, and said), or refused with the problem's kind and why.
"""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from thoughtforge.core.project import Project

Stage = Literal["build", "fix", "revision"]

Problem = Literal[
    "empty",
    "outside_text",
    "not_whole",
    "structure",
    "repeated",
    "truncated",
    "unfilled",
    "not_following",
    "source",
]
"""Why a candidate was refused: nothing; a note to the reader inside it; a diff or a fragment;
a heading, table header or column lost; a section repeated; cut off; an empty cell or a
placeholder; no longer the template's shape; a source file left broken (code)."""


class Candidate(BaseModel):
    """A would-be deliverable: a document's text as the agent answered (with `previous`, the
    accepted version it would replace), or, for a files deliverable, the files the agent changed."""

    model_config = ConfigDict(frozen=True)

    stage: Stage
    text: str = ""
    previous: str | None = None
    files: list[str] = []


class DeliverableVerdict(BaseModel):
    model_config = ConfigDict(frozen=True)

    accepted: bool
    document: str = ""
    """The document as accepted: the answer without what lay outside it."""
    problem: Problem | None = None
    reason: str = ""
    stripped: list[str] = []
    """What was taken off the answer as no part of the document, in the log's words."""

    @classmethod
    def refused(cls, problem: Problem, reason: str) -> DeliverableVerdict:
        return cls(accepted=False, problem=problem, reason=reason)

    @property
    def stripped_note(self) -> str:
        return "; stripped " + " and ".join(self.stripped) if self.stripped else ""


@runtime_checkable
class DeliverableValidator(Protocol):
    """A plugin's `validation` module: `validate(project, candidate)` decides whether the
    candidate may become the deliverable. Without one, a document is checked by
    `document_check.check_document`."""

    def validate(self, project: Project, candidate: Candidate) -> DeliverableVerdict: ...
