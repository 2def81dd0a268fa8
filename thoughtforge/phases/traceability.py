"""Every acceptance criterion with its evidence: the map `docs/traceability.md` shows.

Pure: the criteria are read from `constraints.md`'s `## Acceptance Criteria` list, numbered from
1 in the order the person wrote them; a plugin names the evidence of each (code mode: the tests
that check it, their last result and the commit; plan mode: the plan section or row that
addresses it). A criterion with no evidence is named by `unevidenced`, which blocks `done`.
"""

from __future__ import annotations

from pydantic import BaseModel

from thoughtforge.prompting import SectionedText, list_items

TRACEABILITY_FILE = "docs/traceability.md"
SECTION = "Acceptance Criteria"


class Criterion(BaseModel):
    number: int
    text: str


class Evidence(BaseModel):
    """One piece of evidence for a criterion: what it is, how it stands, where it was seen."""

    what: str
    result: str
    commit: str | None = None

    @property
    def holds(self) -> bool:
        return self.result == "passed" or self.result == "addressed"


class Trace(BaseModel):
    criterion: Criterion
    evidence: list[Evidence] = []

    @property
    def status(self) -> str:
        if not self.evidence:
            return "no evidence"
        return "holds" if all(e.holds for e in self.evidence) else "does not hold"


def criteria(constraints_text: str) -> list[Criterion]:
    """The acceptance criteria of `constraints.md`, numbered from 1."""
    body = SectionedText.parse(constraints_text).get(SECTION) or ""
    return [
        Criterion(number=n, text=" ".join(text.split()))
        for n, text in enumerate(list_items(body), start=1)
    ]


def unevidenced(traces: list[Trace]) -> list[Criterion]:
    """The criteria nothing stands for: each blocks `done` until evidenced or accepted."""
    return [trace.criterion for trace in traces if not trace.evidence]


def without_evidence_reason(missing: list[Criterion], remedy: str) -> str:
    """The halt message naming each criterion with no evidence, and what the person can do."""
    named = "; ".join(f"#{c.number} “{c.text}”" for c in missing)
    return (
        f"{len(missing)} acceptance criterion(s) have no evidence: {named}. {remedy} "
        "Resume once it is there, or override to accept the deliverable without it."
    )


def render(project_name: str, traces: list[Trace], note: str = "") -> str:
    """`docs/traceability.md`: one section per criterion, its evidence in a table."""
    lines = [f"# Traceability: {project_name}", ""]
    if note:
        lines += [note, ""]
    if not traces:
        lines += ["No acceptance criteria in constraints.md.", ""]
    for trace in traces:
        c = trace.criterion
        lines += [f"## {c.number}. {_cell(c.text)}", "", f"Status: {trace.status}", ""]
        if not trace.evidence:
            lines += ["No evidence.", ""]
            continue
        lines += ["| Evidence | Result | Commit |", "| --- | --- | --- |"]
        lines += [
            f"| {_cell(e.what)} | {_cell(e.result)} | {_cell((e.commit or '')[:12])} |"
            for e in trace.evidence
        ]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _cell(text: str) -> str:
    """One line, its pipes escaped: a cell of a Markdown table (the page renders it inert)."""
    return " ".join(text.split()).replace("|", "\\|")
