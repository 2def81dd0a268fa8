"""Every acceptance criterion with its evidence: the map `docs/traceability.md` shows.

Pure: the criteria are read from `constraints.md`'s `## Acceptance Criteria` list, numbered from
1 in the order the person wrote them; a plugin names the evidence of each (code mode: the tests
that check it, their last result in ThoughtForge's own run and the commit; a document: the
passage the reviewer quoted, checked to stand in the section it named, `quoted_traces`). Until a
review has named any, Phase 3's end shows the plan row or section whose words cover a criterion
best (`plan_traces`), a hint and no evidence. A criterion whose evidence does not hold (none, or
a test not passed) is named by `without_evidence`, which blocks `done`.
"""

from __future__ import annotations

import re

from pydantic import BaseModel
from rapidfuzz import fuzz, utils

from thoughtforge.phases.quoted_evidence import Quote, criterion_number, refusal
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
QUOTED_NOTE = (
    "Each acceptance criterion of constraints.md with the passage of the deliverable the "
    "reviewer named as meeting it, checked by ThoughtForge to stand word for word in the section "
    "named (in the deliverable as it is now). A criterion without a checked passage is not done."
)
QUOTE_REMEDY = (
    "Each needs a passage of the deliverable that meets it, which the review quotes in the "
    "section it names and ThoughtForge finds there: edit the deliverable or tell the agent (say)."
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
        return self.result in ("passed", "addressed", "quoted")


class Trace(BaseModel):
    criterion: Criterion
    evidence: list[Evidence] = []
    refused: list[str] = []
    """Evidence named for it that did not stand when checked, each with why."""

    @property
    def status(self) -> str:
        if not self.evidence:
            return "no evidence"
        return "holds" if all(e.holds for e in self.evidence) else "does not hold"

    def why_not(self) -> str:
        """What stands in for its evidence, for a halt message: the results that are not a
        pass, or the refused evidence, or nothing."""
        failing = [f"{e.what} {e.result}" for e in self.evidence if not e.holds]
        said = failing or self.refused
        return "; ".join(said[:3]) if said else "no evidence"


def criteria(constraints_text: str) -> list[Criterion]:
    """The acceptance criteria of `constraints.md`, numbered from 1."""
    body = SectionedText.parse(constraints_text).get(SECTION) or ""
    return [
        Criterion(number=n, text=" ".join(text.split()))
        for n, text in enumerate(list_items(body), start=1)
    ]


def numbered(criteria: list[Criterion]) -> str:
    """The criteria as a reviewer is shown them, numbered as its evidence names them."""
    return "\n".join(f"{c.number}. {c.text}" for c in criteria) or "(none)"


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


def quoted_traces(criteria: list[Criterion], document: str, quotes: list[Quote]) -> list[Trace]:
    """Each criterion with the quotes given for it that stand in `document` as it is now, and
    those that do not (refused, with why)."""
    numbered = {c.number: c.text for c in criteria}
    checked: dict[int, tuple[list[Evidence], list[str]]] = {n: ([], []) for n in numbered}
    for quote in quotes:
        number = criterion_number(quote, numbered)
        if number is None:
            continue
        why = refusal(quote, document)
        found, refused = checked[number]
        if why is None:
            found.append(Evidence(what=quote.shown(), result="quoted"))
        else:
            refused.append(f"{quote.shown()}: {why}")
    return [
        Trace(criterion=c, evidence=checked[c.number][0], refused=checked[c.number][1])
        for c in criteria
    ]


def without_evidence(traces: list[Trace]) -> list[Trace]:
    """The criteria whose evidence does not hold (none, or a test that did not pass): each
    blocks `done` until evidenced or accepted."""
    return [trace for trace in traces if trace.status != "holds"]


def without_evidence_reason(missing: list[Trace], remedy: str) -> str:
    """The halt message naming each criterion without evidence that holds, with what stands
    in its place, and what the person can do."""
    named = "; ".join(
        f"#{t.criterion.number} “{t.criterion.text}” ({t.why_not()})" for t in missing
    )
    return (
        f"{len(missing)} acceptance criterion(s) have no evidence that holds: {named}. {remedy} "
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
        else:
            lines += ["| Evidence | Result | Commit |", "| --- | --- | --- |"]
            lines += [
                f"| {_cell(e.what)} | {_cell(e.result)} | {_cell((e.commit or '')[:12])} |"
                for e in trace.evidence
            ]
            lines.append("")
        if trace.refused:
            lines += ["Refused as evidence:", ""]
            lines += [f"- {_cell(why)}" for why in trace.refused]
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _cell(text: str) -> str:
    """One line, its pipes escaped: a cell of a Markdown table (the page renders it inert)."""
    return " ".join(text.split()).replace("|", "\\|")
