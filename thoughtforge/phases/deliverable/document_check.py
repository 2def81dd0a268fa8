"""The one check a document deliverable passes before it is accepted, at a build, a fix or a
revision: the document alone (read as every agent's document is, `reading`), whole, and in the
shape it had.

Against the version it would replace, a candidate must hold no section twice (a plan returned
twice is refused, not stored), keep to what a fix may change (`edit_rule`: every heading in
order, no section added, every table's header row and column count, so an Objective | Plan |
Assessment table turned into Field | Value is refused), keep its last row and section whole (an
answer cut off mid-row is refused even with every heading present), and gain no empty cell and
no placeholder (`TBD`). A plugin adds what its type needs (`plugins/plan`: the
template's shape and its slots) and passes its own test of a cell (`cell_problem`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from thoughtforge.phases.deliverable import edit_rule, markdown_tables, whole_document
from thoughtforge.phases.deliverable.markdown_tables import Section
from thoughtforge.phases.deliverable.reading import read_document
from thoughtforge.phases.deliverable.verdict import Candidate, DeliverableVerdict, Problem

PLACEHOLDER = re.compile(r"\b(?:tbd|todo|placeholder)s?\b|\blorem ipsum\b", re.IGNORECASE)
"""A word that says the content is still to come, as a whole word in any case ("TODOs", "tbd."),
or the printer's filler text ("Lorem ipsum")."""
REFERENCE_ONLY = re.compile(
    r"[\W_]*(?:(?:see|same as|as|refer to|per)\s+(?:above|below|previous|earlier)"
    r"(?:\s+(?:row|cell|section|table))?|ditto|ibid|idem|same)[\W_]*",
    re.IGNORECASE,
)
"""A cell that only points at another ("see above", "ditto"): it fills nothing itself."""

CellProblem = Callable[[str], str | None]
_WHOLE_ENDS = (".", "!", "?", "|", ":", ")", "*", "_", "`")
"""How a line that was not cut off ends."""


def check_document(
    candidate: Candidate, cell_problem: CellProblem | None = None
) -> DeliverableVerdict:
    """The verdict on a document candidate (`candidate.previous`: the version it would replace)."""
    reading = read_document(candidate.text, candidate.previous)
    if reading.problem is not None:
        return DeliverableVerdict.refused(reading.problem, reading.reason)
    document = reading.document
    problem = _problem(document, candidate.previous, cell_problem or _no_content)
    if problem is not None:
        return DeliverableVerdict.refused(*problem)
    return DeliverableVerdict(accepted=True, document=document, stripped=list(reading.stripped))


def _problem(new: str, old: str | None, cell_problem: CellProblem) -> tuple[Problem, str] | None:
    new_sections = markdown_tables.sections(new)
    old_sections = markdown_tables.sections(old) if old is not None else []
    cut = _cut_off(new_sections, old_sections, new)
    whole = whole_document.refusal(old, new) if old is not None else None
    if whole and not cut:
        return "not_whole", whole
    if cut:
        return "truncated", cut
    if old is not None:
        repeated = _repeated_rows(new_sections, old_sections)
        if repeated:
            return "repeated", repeated
        shape = edit_rule.breach(old, new)
        if shape:
            return "structure", shape
    content = _unfilled(new_sections, old_sections, cell_problem)
    if content:
        return "unfilled", content
    return None


def _cut_off(new: list[Section], old: list[Section], text: str) -> str | None:
    """The answer stops mid-sentence in a last section that lost rows it had (mid-row:
    `reading`)."""
    last = text.rstrip().rsplit("\n", 1)[-1].strip()
    if new and old and new[-1].heading == old[-1].heading and not last.endswith(_WHOLE_ENDS):
        had = sum(len(t.rows) for t in old[-1].tables)
        has = sum(len(t.rows) for t in new[-1].tables)
        if has < had:
            return (
                f"the answer is cut off in its last section '{new[-1].heading}' "
                f"({has} of its {had} table row(s))"
            )
    return None


def _repeated_rows(new: list[Section], old: list[Section]) -> str | None:
    """A table row written twice, word for word, where the previous version had it once."""
    had = _row_counts(old)
    for (heading, row), count in _row_counts(new).items():
        if count > max(had.get((heading, row), 0), 1):
            return f"the table of '{heading}' holds the row '| {' | '.join(row)[:60]} |' twice"
    return None


def _row_counts(parts: list[Section]) -> Counter[tuple[str, tuple[str, ...]]]:
    return Counter(
        (section.heading, tuple(row))
        for section in parts
        for table in section.tables
        for row in table.rows
    )


def _unfilled(new: list[Section], old: list[Section], cell_problem: CellProblem) -> str | None:
    """An empty or placeholder cell, or a placeholder word, that the previous version lacked."""
    found, had = _content_problems(new, cell_problem), _content_problems(old, cell_problem)
    for (heading, why), count in found.items():
        if count > had.get((heading, why), 0):
            where = f"'{heading}'" if heading else "the text before the first heading"
            return f"{where} holds {why}"
    return None


def _content_problems(parts: list[Section], cell_problem: CellProblem) -> Counter[tuple[str, str]]:
    problems: Counter[tuple[str, str]] = Counter()
    for section in parts:
        for table in section.tables:
            if not table.rows:
                problems[(section.heading, "a table with its header row and no row")] += 1
            for row in table.rows:
                for cell in row:
                    why = cell_problem(cell)
                    if why:
                        problems[(section.heading, f"a cell with {why}")] += 1
        for line in section.lines:
            for word in PLACEHOLDER.findall(line):
                problems[(section.heading, f"placeholder text '{word}'")] += 1
    return problems


def _no_content(cell: str) -> str | None:
    if not any(char.isalnum() for char in cell):
        return "no content"
    return placeholder_in(cell)


def placeholder_in(cell: str) -> str | None:
    """Why a cell's text stands in for content it lacks (a placeholder, filler text, a pointer
    to another cell), or None."""
    found = PLACEHOLDER.search(cell)
    if found:
        return f"placeholder text '{found.group(0)}'"
    if REFERENCE_ONLY.fullmatch(cell):
        return f"a pointer to another cell ('{cell.strip()}') instead of content"
    return None
