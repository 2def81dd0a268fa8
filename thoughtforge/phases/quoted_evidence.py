"""A reviewer's evidence that a document meets an acceptance criterion, and ThoughtForge's check
of it: the passage quoted must stand, word for word, in the section named.

Pure. A reviewer's word that a criterion is met is no evidence by itself; a quote is, once checked,
because ThoughtForge can see whether the words are there. The check reads both texts as a reader
does: case, runs of spaces, Markdown emphasis, list markers, table pipes, links and typographic
quotes and dashes are not words, so an honest quote that drops a `**` or a `|` still counts. A
quote may leave words out with an ellipsis ("Week 1: … Week 4: review"); its parts must then stand
in that order. It must be a few words long (`MIN_WORDS`), or a whole line, item or table cell of
the section: a lone word is present in almost any document.

The check is always made against the document as it is now, never remembered: a quote a fix has
since removed fails, whatever an earlier check said.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

MIN_WORDS = 3
"""A quote shorter than this must be a whole line, list item or table cell of its section."""
MIN_WHOLE_WORDS = 2
QUOTE_SHOWN = 160
"""At most this many characters of a quote in `docs/traceability.md` and a halt message."""


class Quote(BaseModel):
    """One piece of evidence as a reviewer gives it: the criterion (its number, or its words),
    the section of the document and the passage quoted from it."""

    model_config = ConfigDict(extra="ignore")

    criterion: str = Field(max_length=2000)
    section: str = Field(max_length=500)
    quote: str = Field(max_length=4000)

    def shown(self) -> str:
        """Where and what, for a person: section “Budget”: “the total stays …”."""
        words = " ".join(self.quote.split())
        cut = words if len(words) <= QUOTE_SHOWN else words[: QUOTE_SHOWN - 1] + "…"
        return f"section “{' '.join(self.section.split())}”: “{cut}”"


def quotes_of(raw: object) -> list[Quote]:
    """The evidence items of a review answer that can be read; the others are left out (an
    honest reviewer's odd item costs it that item, never the whole review)."""
    if not isinstance(raw, list):
        return []
    found = []
    for item in raw:
        if not isinstance(item, dict):
            continue
        values: dict[str, Any] = {
            key: str(value) if isinstance(value, int | float | str) else value
            for key, value in item.items()
        }
        try:
            found.append(Quote.model_validate(values))
        except ValidationError:
            continue
    return found


_NUMBER = re.compile(r"\d+")


def criterion_number(quote: Quote, criteria: dict[int, str]) -> int | None:
    """The criterion a quote is given for: its number ("2", "#2", "AC 2", "criterion 2"), or
    its words as the constraints state them."""
    named = quote.criterion.strip()
    number = _NUMBER.search(named)
    if number is not None and len(named) <= 20:
        found = int(number.group())
        return found if found in criteria else None
    key = _plain(named)
    return next((n for n, text in criteria.items() if _plain(text) == key), None)


def refusal(quote: Quote, document: str) -> str | None:
    """Why the quote is no evidence in `document`; None when it stands in the section named."""
    fragments = [_plain(part) for part in _ELLIPSIS.split(quote.quote)]
    fragments = [part for part in fragments if part]
    if not fragments:
        return "the quote is empty"
    spans = _section_spans(document, quote.section)
    if not spans:
        return f"the document has no section “{' '.join(quote.section.split())[:80]}”"
    words = sum(len(part.split()) for part in fragments)
    for span in spans:
        body = _plain("\n".join(span))
        if not _in_order(fragments, body):
            continue
        if words >= MIN_WORDS or _whole_unit(fragments, span):
            return None
        return f"the quote is shorter than {MIN_WORDS} words and no whole line, item or cell"
    return "the quote is not in that section"


def _in_order(fragments: list[str], body: str) -> bool:
    start = 0
    for fragment in fragments:
        found = _find_words(body, fragment, start)
        if found < 0:
            return False
        start = found + len(fragment)
    return True


def _find_words(body: str, fragment: str, start: int) -> int:
    """Where `fragment` stands in `body` from `start` as whole words (not "plan" in "planet")."""
    pattern = re.compile(rf"(?<!\w){re.escape(fragment)}(?!\w)")
    found = pattern.search(body, start)
    return found.start() if found else -1


def _whole_unit(fragments: list[str], span: list[str]) -> bool:
    """A short quote that is a whole line, list item or table cell of the section."""
    if len(fragments) != 1 or len(fragments[0].split()) < MIN_WHOLE_WORDS:
        return False
    units = {_plain(line) for line in span}
    units |= {_plain(cell) for line in span if "|" in line for cell in line.split("|")}
    return fragments[0] in units


_HEADING = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_NUMBERING = re.compile(r"^(?:§\s*)?(?:\d+(?:\.\d+)*[.)]?\s+)")


def _section_spans(document: str, name: str) -> list[list[str]]:
    """The lines of each section whose heading `name` names, its subsections included: a
    heading that equals it (case, emphasis, `#`s and numbering ignored), else the longest
    heading it contains ("Budget table, Plan column" names "Budget")."""
    headings: list[tuple[int, int, str]] = []  # line index, level, key
    lines = document.splitlines()
    fenced = False
    for index, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
        heading = None if fenced else _HEADING.match(line)
        if heading:
            headings.append((index, len(heading.group(1)), _heading_key(heading.group(2))))
    key = _heading_key(name)
    if not key:
        return []
    chosen = [h for h in headings if h[2] == key]
    if not chosen:
        inside = [h for h in headings if h[2] and _find_words(key, h[2], 0) >= 0]
        longest = max((len(h[2]) for h in inside), default=0)
        chosen = [h for h in inside if len(h[2]) == longest]
    spans = []
    for index, level, _ in chosen:
        end = next((i for i, lv, _ in headings if i > index and lv <= level), len(lines))
        spans.append(lines[index + 1 : end])
    return spans


def _heading_key(name: str) -> str:
    plain = _NUMBERING.sub("", _plain(name.strip().lstrip("#")))
    return plain.removeprefix("section ").strip(_EDGES)


_ELLIPSIS = re.compile(r"\.{3,}|…|\[\s*(?:\.{3}|…)\s*\]")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MARKS = re.compile(r"[*_`~|>]|<br\s*/?>|\\(?=\S)")
_LINE_START = re.compile(r"^\s*(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+|#{1,6}\s+)", re.MULTILINE)
_TYPOGRAPHY = str.maketrans(
    {"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'", "–": "-", "—": "-", "‑": "-", "\xa0": " "}
)
_EDGES = " \t\n\"'.,;:!?()[]"


def _plain(text: str) -> str:
    """Text as a reader compares it: markup and typography gone, lower case, one space."""
    text = unicodedata.normalize("NFKC", text).translate(_TYPOGRAPHY)
    text = _LINE_START.sub("", _LINK.sub(r"\1", text))
    text = _MARKS.sub(" ", text)
    return " ".join(text.casefold().split()).strip(_EDGES)
