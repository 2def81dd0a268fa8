"""Every acceptance criterion with its evidence: the map `docs/traceability.md` shows.

Pure: the criteria are read from `constraints.md`'s `## Acceptance Criteria` list, numbered from
1 in the order the person wrote them; a plugin names the evidence of each (code mode: the tests
that check it, their last result and the commit; plan mode: the plan section or row that
addresses it). A criterion with no evidence is named by `unevidenced`, which blocks `done`.
"""

from __future__ import annotations

import re

from pydantic import BaseModel
from rapidfuzz import fuzz, utils

from thoughtforge.prompting import SectionedText, list_items

TRACEABILITY_FILE = "docs/traceability.md"
SECTION = "Acceptance Criteria"
PLAN_MATCH = 60
"""A plan row or section whose words cover a criterion's this well (rapidfuzz's token-set
ratio, 0–100) is named as what addresses it."""
PLAN_NOTE = (
    "Each acceptance criterion of constraints.md with the plan section or table row whose words "
    "cover it best, found mechanically: the reviewer judges whether it really does."
)
_ROW = re.compile(r"^\s*\|(.+)\|\s*$")
_SEPARATOR = re.compile(r"^[\s|:-]+$")


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


def plan_traces(criteria: list[Criterion], plan_text: str) -> list[Trace]:
    """Each criterion with the plan's row (or else section) that covers its words best."""
    places = _plan_places(plan_text)
    traces = []
    for criterion in criteria:
        scored = [
            (fuzz.token_set_ratio(criterion.text, text, processor=utils.default_process), where)
            for where, text in places
        ]
        best = max(scored, default=(0.0, ""), key=lambda pair: pair[0])
        evidence = [Evidence(what=best[1], result="addressed")] if best[0] >= PLAN_MATCH else []
        traces.append(Trace(criterion=criterion, evidence=evidence))
    return traces


def plan_traceability(project_name: str, constraints_text: str, plan_text: str) -> str:
    """`docs/traceability.md` of a plan."""
    return render(project_name, plan_traces(criteria(constraints_text), plan_text), PLAN_NOTE)


def _plan_places(plan_text: str) -> list[tuple[str, str]]:
    """(where, its words) for every table row, then every section, of a plan."""
    rows: list[tuple[str, str]] = []
    sections: list[tuple[str, str]] = []
    for section in SectionedText.parse(plan_text).sections:
        heading = section.heading or "the plan"
        sections.append((f"section “{heading}”", f"{heading} {section.body}"))
        for line in section.body.splitlines():
            row = _ROW.match(line)
            if row is None or _SEPARATOR.match(line):
                continue
            cells = [cell.strip() for cell in row.group(1).split("|")]
            if [c.lower() for c in cells[:3]] == ["objective", "plan", "assessment"]:
                continue
            rows.append((f"row “{cells[0][:60]}” of section “{heading}”", " ".join(cells)))
    return rows + sections


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
