"""The one reader of an agent's Markdown document, in every phase: Phase 1's distillation,
Phase 2's proposal, and the deliverable a build, a fix or a revision hands to its validator.

What lies around the document is taken off as `outside_text` reads it (a fence, a preamble, a
"Changes made:" list, a note to the reader), and named so the log can say so. What no honest
answer holds is refused, for a re-ask: nothing at all; a section the document has (its expected
sections, or the headings of the version it replaces) written more often than it had it; a
heading of one inside a line (`- The party is ## Deliverable Type`); a last table row left
open. These are what a stream cut off (and glued to its retry) looks like, and a locked document
must never hold one.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass

from thoughtforge.errors import UnusableReply
from thoughtforge.phases.deliverable import markdown_tables, outside_text
from thoughtforge.phases.deliverable.verdict import Problem
from thoughtforge.prompting import heading_key, with_known_headings

_INLINE_HEADING = re.compile(r"\S[ \t]+(#{1,6}[ \t]+\S.*)$")
"""A heading's marks after other text on the same line."""
_FENCE = re.compile(r"[ \t]*(```|~~~)")
_QUOTED = 60


@dataclass(frozen=True)
class Reading:
    """The document read out of an answer; `problem` and `reason` say why it cannot be used."""

    document: str
    stripped: tuple[str, ...] = ()
    problem: Problem | None = None
    reason: str = ""

    def usable(self, answer: str) -> Reading:
        """This reading, or the refusal a re-ask quotes (`UnusableReply`, with the answer)."""
        if self.problem is not None:
            raise UnusableReply(self.reason, answer)
        return self


def read_document(
    answer: str, previous: str | None = None, sections: Collection[str] = ()
) -> Reading:
    """The document in `answer`: `previous` is the version it would replace (a deliverable),
    `sections` the `##` sections it is asked for (Phase 1 and 2; their headings are lifted to
    `##` when written at another level)."""
    separated = outside_text.separate(answer, previous)
    stripped = tuple(separated.stripped)
    if separated.refused is not None:
        return Reading(separated.document, stripped, "outside_text", separated.refused)
    document = with_known_headings(separated.document, sections) if sections else separated.document
    if not document.strip():
        return Reading("", stripped, "empty", "the answer holds no document")
    had = Counter(_key(h) for h in markdown_tables.headings(previous or ""))
    had.update(heading_key(name) for name in sections)
    cut = _cut_mid_row(document) or _heading_inside_a_line(document, set(had))
    if cut is not None:
        return Reading(document, stripped, "truncated", cut)
    repeated = repeated_sections(markdown_tables.headings(document), had)
    if repeated is not None:
        return Reading(document, stripped, "repeated", repeated)
    return Reading(document, stripped)


def repeated_sections(found: list[str], had: Counter[str]) -> str | None:
    """Why the headings `found` repeat a section: one the document had (`had`, by `heading_key`)
    now more often than it had it; more than half of them repeated is the document twice."""
    counted = Counter(_key(h) for h in found)
    named = {_key(h): h for h in reversed(found)}
    twice = [named[k] for k, n in counted.items() if had.get(k, 0) and n > had[k]]
    if not twice:
        return None
    if len(twice) * 2 > len(had):
        return f"the answer holds the document more than once ({len(twice)} sections repeated)"
    return f"the answer repeats the section(s) {', '.join(twice)}"


def _cut_mid_row(document: str) -> str | None:
    """The answer stops inside a table row (its header closes with a pipe, the row does not)."""
    parts = markdown_tables.sections(document)
    if parts and parts[-1].tables and parts[-1].tables[-1].open_rows[-1:] == [True]:
        row = " | ".join(parts[-1].tables[-1].rows[-1])
        return f"the answer is cut off mid-row at its end ('| {row[:_QUOTED]}')"
    return None


def _heading_inside_a_line(document: str, keys: set[str]) -> str | None:
    """A known heading after other text on a line, outside code fences: a section cut off where
    the answer started again."""
    fenced = False
    for line in document.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        found = None if fenced else _INLINE_HEADING.search(line.strip())
        if found and _key(found.group(1)) in keys:
            text = line.strip()
            quoted = text if len(text) <= _QUOTED else "…" + text[-(_QUOTED - 1) :]
            return (
                f"a section is cut off where a heading begins inside its line ({quoted!r}): the "
                "answer broke off and started again"
            )
    return None


def _key(heading: str) -> str:
    return heading_key(heading.strip().lstrip("#"))
