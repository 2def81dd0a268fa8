"""Whether a fix shows at a finding's place: a change there is evidence of a fix only when it
could be one.

Three changes are not, by themselves (`shown`): deleting most of what the finding is about (the
lines of its place that name what it names; the whole place when none does), unless the finding
asks for something to go; replacing the whole place with text that keeps less than half of the
old and names nothing the finding or its recommendation names; and changing only dates, times or
a revision stamp (`_(revised 2026-05-01 10:41)_`), unless the finding is about a date or a time
(a stamp never is). An honest fix keeps what the finding is about, or rewrites it in the
finding's own words: a rewritten cell, an added sentence.

The words compared are `issue_wording.words` (stop words dropped, stems and synonyms merged).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import cached_property
from typing import Literal

from thoughtforge.models import Issue
from thoughtforge.phases.deliverable.markdown_tables import section_texts
from thoughtforge.phases.polish.issue_wording import words

Shown = Literal["shows", "deleted", "unrelated", "marks"]
NOT_SHOWN = {
    "deleted": "deleted most of what it is about",
    "unrelated": "replaced its place with text that names nothing it names",
    "marks": "changed only a date, a time or a revision mark",
}
"""What a fix did that shows no fix, in the log's words."""

_TOKEN = re.compile(r"[^\W_]+")
_HEADING = re.compile(r"\s*#{1,6}\s")
_RULE = re.compile(r"[\s|:-]*-{3,}[\s|:-]*")
_MONTH = (
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
    r"|(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?"
)
_DATE = (
    r"\d{4}-\d{1,2}-\d{1,2}(?:[t ]\d{1,2}:\d{2}(?::\d{2})?(?:z|[+-]\d{2}:?\d{2})?)?"
    r"|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTH})(?:,?\s+\d{{4}})?"
    rf"|(?:{_MONTH})\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?"
    r"|\d{1,2}:\d{2}(?::\d{2})?(?:\s*(?:am|pm|utc|gmt))?"
)
_STAMP = (
    r"(?:last\s+)?(?:revised|revision|rev|updated|update|edited|modified|amended|changed)"
    r"(?:\s+(?:on|at|by))?|version\s+\d+(?:\.\d+)*|v\d+(?:\.\d+)+"
)
_DATES = re.compile(rf"\b(?:{_DATE})\b", re.IGNORECASE)
_STAMPS = re.compile(rf"\b(?:{_STAMP})\b", re.IGNORECASE)
_ABOUT_TIME = re.compile(
    r"\b(?:dates?|dated|deadlines?|due|times?|timings?|timeline|timetable|schedul\w*|when|"
    r"days?|weeks?|months?|years?|hours?|minutes?|late|later|early|earlier|before|after|"
    r"until|overdue|calendar|clash\w*|overlap\w*)\b",
    re.IGNORECASE,
)
_ABOUT_REMOVAL = re.compile(
    r"\b(?:remov\w*|delet\w*|drop\w*|cut\w*|omit\w*|eliminat\w*|strip\w*|shorten\w*|trim\w*|"
    r"simplif\w*|condens\w*|redundant|duplicat\w*|repeat\w*|twice|unnecessary|superfluous|"
    r"excessive|verbose|wordy|too long|forbid\w*|prohibit\w*|not allowed|banned|obsolete|"
    r"out of scope|should not|must not|shouldn't|mustn't)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class PlaceChange:
    """A place's text before a fix and after it, compared word by word once for every finding
    there."""

    before: str
    after: str

    @cached_property
    def _lines(self) -> list[tuple[str, int]]:
        return _words_by_line(self.before)

    @cached_property
    def _after_tokens(self) -> list[str]:
        return [token for token, _ in _words_by_line(self.after)]

    @cached_property
    def _opcodes(self) -> Sequence[tuple[str, int, int, int, int]]:
        before = [token for token, _ in self._lines]
        matcher = SequenceMatcher(None, before, self._after_tokens, autojunk=False)
        return matcher.get_opcodes()

    @cached_property
    def only_marks(self) -> Literal["stamp", "dates", ""]:
        """What the change was when all it changed is revision stamps ("stamp") or dates and
        times ("dates"); "" for any other change."""
        if _unmarked(self.before) != _unmarked(self.after):
            return ""
        stamps = _STAMPS.findall(self.before) != _STAMPS.findall(self.after)
        return "stamp" if stamps else "dates"

    def spot(self, about: frozenset[str]) -> set[int]:
        """The lines of the place before the fix that name what the finding names (every line
        when none does)."""
        named = {n for token, n in self._lines if words(token) & about}
        return named or {n for _, n in self._lines}

    def deleted(self, spot: set[int]) -> bool:
        """Most of the spot's words removed, and less than half as many put in their stead."""
        at = [n in spot for _, n in self._lines]
        total = sum(at)
        removed = added = 0
        for tag, i1, i2, j1, j2 in self._opcodes:
            touches = any(at[i1:i2]) or (tag == "insert" and any(at[max(i1 - 1, 0) : i1 + 1]))
            if tag == "equal" or not touches:
                continue
            removed += sum(at[i1:i2])
            added += j2 - j1
        return total > 0 and removed * 2 > total and added * 2 < removed

    def replaced(self) -> bool:
        """Less than half of the place's words kept, and at least half as many put in their
        stead (fewer is a deletion)."""
        kept = sum(i2 - i1 for tag, i1, i2, _, _ in self._opcodes if tag == "equal")
        removed = len(self._lines) - kept
        added = len(self._after_tokens) - kept
        return kept * 2 < len(self._lines) and added * 2 >= removed

    def added_words(self) -> frozenset[str]:
        tokens = self._after_tokens
        return words(
            " ".join(
                " ".join(tokens[j1:j2]) for tag, _, _, j1, j2 in self._opcodes if tag != "equal"
            )
        )


def shown(finding: str, recommendation: str, change: PlaceChange) -> Shown:
    """How a fix's `change` of a finding's place reads as its fix: "shows", or why not."""
    marks = change.only_marks
    if marks == "stamp" or (marks == "dates" and not _about_time(finding)):
        return "marks"
    about = frozenset(w for w in words(f"{finding} {recommendation}") if not w.isdigit())
    if not _ABOUT_REMOVAL.search(finding) and change.deleted(change.spot(about)):
        return "deleted"
    if change.replaced() and not (change.added_words() & about):
        return "unrelated"
    return "shows"


class FixEvidence:
    """A document before a fix and after it, each place compared once for all its findings."""

    def __init__(self, before: str, after: str) -> None:
        self.documents = (before, after)
        self.sections = (section_texts(before), section_texts(after))
        self.changes: dict[str | None, PlaceChange] = {}

    def of(self, issue: Issue, place: str | None) -> Shown:
        """How the fix's change of a finding's place (a heading; the whole document when the
        finding names not exactly one) reads as its fix."""
        if place not in self.sections[0] or place not in self.sections[1]:
            place = None
        change = self.changes.get(place)
        if change is None:
            before, after = self.documents
            if place is not None:
                before, after = self.sections[0][place], self.sections[1][place]
            change = self.changes[place] = PlaceChange(before, after)
        return shown(issue.description, issue.recommendation, change)


QUOTED_WORDS = 3
"""The fewest words (dates and revision stamps aside) a confirming quote must hold."""


def quoted_in(quote: str, document: str) -> bool:
    """Whether a review's quote is text of the document (case, spacing, Markdown emphasis and
    table pipes aside) of at least `QUOTED_WORDS` words that are not only dates or stamps."""
    if len(_unmarked(quote)) < QUOTED_WORDS:
        return False
    text = _plain(document)
    parts = [_plain(part) for part in _ELLIPSIS.split(quote)]
    return all(part in text for part in parts if part)


def _plain(text: str) -> str:
    return " ".join(_MARKUP.sub(" ", text).lower().split())


_ELLIPSIS = re.compile(r"\.{3}|…")
_MARKUP = re.compile(r"[|*_`>#]|<br\s*/?>")


def _words_by_line(text: str) -> list[tuple[str, int]]:
    """A text's words, lower-cased, each with the index of its line; headings, table rules and
    table header rows (a fix may not change those) left out."""
    lines = text.splitlines()
    found: list[tuple[str, int]] = []
    for n, line in enumerate(lines):
        ruled = n + 1 < len(lines) and _RULE.fullmatch(lines[n + 1]) is not None
        if _HEADING.match(line) or _RULE.fullmatch(line) or ruled:
            continue
        found.extend((token.lower(), n) for token in _TOKEN.findall(line))
    return found


def _unmarked(text: str) -> list[str]:
    """The words of a text once its dates, times and revision stamps are taken out."""
    return _TOKEN.findall(_STAMPS.sub(" ", _DATES.sub(" ", text)).lower())


def _about_time(text: str) -> bool:
    return _ABOUT_TIME.search(text) is not None or _DATES.search(text) is not None
