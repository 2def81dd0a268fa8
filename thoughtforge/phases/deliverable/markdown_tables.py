"""A Markdown document read as the validator compares it: its headings and, under each, its
tables with their header row and body rows, split into cells.

Only what lies outside code fences counts; a heading's section runs to the next heading, and the
text before the first heading is the section ''. A table is a header row, a rule row
(`| --- | --- |`) and the rows after it that start with a pipe.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

_HEADING = re.compile(r"#{1,6}\s")
_RULE = re.compile(r"\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?")
_PIPE = re.compile(r"(?<!\\)\|")


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)
    open_rows: list[bool] = field(default_factory=list)
    """For each row: it does not end with the pipe its header ends with (cut off mid-row)."""
    closed_header: bool = True


@dataclass
class Section:
    heading: str
    tables: list[Table] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    """Its non-blank lines outside tables (the heading excluded)."""


def cells(row: str) -> list[str]:
    """A row's cells, their text stripped; the outer pipes are no cells."""
    text = row.strip()
    text = text.removeprefix("|")
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    return [cell.strip() for cell in _PIPE.split(text)]


def heading_text(line: str) -> str | None:
    stripped = line.strip()
    return " ".join(stripped.split()) if _HEADING.match(stripped) else None


def sections(text: str) -> list[Section]:
    """The document's sections in order, each with its tables and other lines."""
    found = [Section(heading="")]
    lines = text.splitlines()
    fenced = False
    n = 0
    while n < len(lines):
        line = lines[n].strip()
        n += 1
        if line.startswith(("```", "~~~")):
            fenced = not fenced
        if fenced or line.startswith(("```", "~~~")):
            if line:
                found[-1].lines.append(line)
            continue
        heading = heading_text(line)
        if heading is not None:
            found.append(Section(heading=heading))
            continue
        if line.startswith("|") and n < len(lines) and _is_rule(lines[n].strip()):
            table = Table(header=cells(line), closed_header=line.endswith("|"))
            n += 1
            while n < len(lines) and lines[n].strip().startswith("|"):
                row = lines[n].strip()
                table.rows.append(cells(row))
                table.open_rows.append(table.closed_header and not row.endswith("|"))
                n += 1
            found[-1].tables.append(table)
            continue
        if line:
            found[-1].lines.append(line)
    if not found[0].tables and not found[0].lines:
        found.pop(0)
    return found


def headings(text: str) -> list[str]:
    return [s.heading for s in sections(text) if s.heading]


def _is_rule(line: str) -> bool:
    return "-" in line and _RULE.fullmatch(line) is not None


def changed_headings(old: str, new: str) -> list[str]:
    """The headings of the sections whose text a change touched (added ones included; '' for
    the text before the first heading), in the new document's order."""
    before: dict[tuple[str, int], list[str]] = {}
    for key, lines in _section_texts(old):
        before[key] = lines
    return [key[0] for key, lines in _section_texts(new) if before.get(key) != lines]


def section_versions(text: str) -> dict[str, str]:
    """Each section's content hash (its non-blank lines as `same_text` reads them), by heading;
    a heading that occurs twice names no one section and is left out."""
    return {
        heading: hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]
        for heading, body in section_texts(text).items()
    }


def section_texts(text: str) -> dict[str, str]:
    """Each section's text (its non-blank lines), by heading; a heading that occurs twice names
    no one section and is left out."""
    found = _section_texts(text)
    twice = {heading for (heading, occurrence), _ in found if occurrence > 1}
    return {heading: "\n".join(lines) for (heading, _), lines in found if heading not in twice}


def same_text(line: str) -> str:
    """A line as a change is judged: its indentation kept (it nests a list), runs of spaces
    inside it and at its end made one (they change nothing a reader sees)."""
    body = line.lstrip()
    return line[: len(line) - len(body)] + " ".join(body.split()) if body else ""


def _section_texts(text: str) -> list[tuple[tuple[str, int], list[str]]]:
    """Each section's non-blank lines (`same_text`), keyed by its heading and that heading's
    occurrence."""
    found: list[tuple[tuple[str, int], list[str]]] = []
    seen: dict[str, int] = {}
    heading, lines = "", []
    for line in [*text.splitlines(), "# \x00end"]:
        name = heading_text(line)
        if name is None:
            if line.strip():
                lines.append(same_text(line))
            continue
        if heading or lines:
            seen[heading] = seen.get(heading, 0) + 1
            found.append(((heading, seen[heading]), lines))
        heading, lines = name, []
    return found
