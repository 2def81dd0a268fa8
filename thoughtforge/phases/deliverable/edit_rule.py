"""What a fix or a revision may change in a document deliverable: the one rule the fix prompt
states (`rule_text`, rendered into it as `{{edit_rule}}`) and the validator enforces (`breach`).

Inside a section anything may change: a sentence, a bullet, a paragraph, a table row, reworded,
added or taken out. The skeleton stays: every heading word for word and in its order, no new
section (a `#` or `##` heading; a `###` inside a section is its content), every table with its
header row and its number of columns. Each clause says what it asks and what to do instead, so
a refusal names what broke and how to mend it in the same words the prompt used.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from thoughtforge.phases.deliverable import markdown_tables
from thoughtforge.phases.deliverable.markdown_tables import Table

MAY_CHANGE = (
    "Inside a section you may change anything: reword it, add or remove a sentence, a bullet, a "
    "paragraph or a table row."
)


@dataclass(frozen=True)
class Clause:
    """One thing a fix must keep: as the prompt states it, what to do instead when broken, and
    what in a new version breaks it against the old one (None: nothing)."""

    states: str
    instead: str
    broken_by: Callable[[str, str], str | None]


def _lost_headings(old: str, new: str) -> str | None:
    """Every heading of the document must still stand, in the same order."""
    kept, at, lost = markdown_tables.headings(new), 0, []
    for heading in markdown_tables.headings(old):
        if heading in kept[at:]:
            at = kept.index(heading, at) + 1
        else:
            lost.append(heading)
    return f"the fixer dropped or reordered the heading(s) {', '.join(lost)}" if lost else None


def _added(old: str, new: str) -> str | None:
    """A section the previous version lacks, at the template's levels (`#`, `##`)."""
    had = set(markdown_tables.headings(old))
    added = [h for h in markdown_tables.headings(new) if h not in had and _SECTION.match(h)]
    if not added:
        return None
    return f"the answer adds the section(s) {', '.join(added)}, which the document does not have"


def _lost_tables(old: str, new: str) -> str | None:
    """Each section keeps at least the tables it had (its cells may change; a `###` above one
    leaves it in its section)."""
    tables: dict[str, list[int]] = {}
    for heading, count in _skeleton(new):
        tables.setdefault(heading, []).append(count)
    lost = []
    for heading, count in _skeleton(old):
        kept = tables.get(heading) or [0]
        if kept.pop(0) < count:
            lost.append(heading or "the text before the first heading")
    return f"the fixer dropped the table(s) of {', '.join(lost)}" if lost else None


def _table_shape(old: str, new: str) -> str | None:
    """Each table keeps the header row and the column count it had."""
    old_tables = _tables_by_place(old)
    for place, table in _tables_by_place(new).items():
        before = old_tables.get(place)
        if before is None:
            continue
        heading = place[0] or "the text before the first heading"
        if _plain(table.header) != _plain(before.header):
            return (
                f"the table of '{heading}' has the header {' | '.join(table.header)!r} where it "
                f"had {' | '.join(before.header)!r}"
            )
        for n, row in enumerate(table.rows, start=1):
            if len(row) != len(before.header):
                return (
                    f"row {n} of the table of '{heading}' has {len(row)} cell(s) where its "
                    f"header has {len(before.header)}"
                )
    return None


CLAUSES = (
    Clause(
        "Keep every heading word for word, in its order.",
        "keep every heading as it was, in its order",
        _lost_headings,
    ),
    Clause(
        "Add no new section (no new `#` or `##` heading): new content goes under an existing "
        "section.",
        "put that content under an existing section",
        _added,
    ),
    Clause(
        "Keep every table, with its header row and its number of columns.",
        "keep each table with its header row and columns (rows may be added or changed)",
        lambda old, new: _lost_tables(old, new) or _table_shape(old, new),
    ),
)


def rule_text() -> str:
    """The rule as the fix prompt states it."""
    return "\n".join(f"- {line}" for line in (MAY_CHANGE, *(c.states for c in CLAUSES)))


def breach(old: str, new: str) -> str | None:
    """What in `new` breaks the rule against `old`, and what to do instead; None: nothing."""
    for clause in CLAUSES:
        broken = clause.broken_by(old, new)
        if broken:
            return f"{broken}; {clause.instead}"
    return None


_SECTION = re.compile(r"#{1,2}\s")
_TABLE_RULE = re.compile(r"\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?")


def _skeleton(text: str) -> list[tuple[str, int]]:
    """The document's section headings (`#`, `##`) outside code fences, as written, each with
    the number of tables in its section (a document's text before its first heading counts
    under '')."""
    return list(_sections(text))


def _sections(text: str) -> Iterator[tuple[str, int]]:
    heading, tables, fenced = "", 0, False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
        elif fenced:
            continue
        elif _SECTION.match(stripped):
            if heading or tables:
                yield heading, tables
            heading, tables = " ".join(stripped.split()), 0
        elif "-" in stripped and _TABLE_RULE.fullmatch(stripped):
            tables += 1
    if heading or tables:
        yield heading, tables


def _tables_by_place(text: str) -> dict[tuple[str, int, int], Table]:
    """Each table by its section's heading, that heading's occurrence and its index in it."""
    seen: Counter[str] = Counter()
    places: dict[tuple[str, int, int], Table] = {}
    for section in markdown_tables.sections(text):
        seen[section.heading] += 1
        for n, table in enumerate(section.tables):
            places[(section.heading, seen[section.heading], n)] = table
    return places


def _plain(cells: list[str]) -> list[str]:
    return [" ".join(cell.lower().strip("*_ ").split()) for cell in cells]
