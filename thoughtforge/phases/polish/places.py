"""Where a finding is: a reviewer's `location` ("Timeline & Milestones", "## Section 2",
"api/users.py:88") compared with another finding's, and with the places a fix changed.

A place is the set of words that name it (lower-cased; "section", "table", "row" and the like
dropped; a file path kept whole, its line number dropped: a line moves when the file is edited).
Two places agree when either is unknown (empty) or they share a word.
"""

from __future__ import annotations

import re
from functools import lru_cache

_PATH = re.compile(r"([\w.-]+(?:/[\w.-]+)*\.\w+)(?::\d+(?:-\d+)?)?")
_WORD = re.compile(r"[a-z0-9]+")
_NOT_A_PLACE_WORDS = """
    section sections table tables row rows column columns cell cells and the of in on at a an
    part heading line lines whole document plan file throughout all everywhere see under
    objective objectives assessment overall general entire throughout global various multiple
    several every everywhere whole n/a na none
"""
_NOT_A_PLACE = frozenset(_NOT_A_PLACE_WORDS.split())
"""Words that say what kind of place, not which one (an OPA column is in every section), or that
the finding is everywhere: such a location is unknown, and any change addresses it."""


@lru_cache(maxsize=8192)
def place_words(location: str) -> frozenset[str]:
    """The words that name a place; empty for an unknown one."""
    text = location.lower()
    paths = {found.group(1) for found in _PATH.finditer(text)}
    rest = _PATH.sub(" ", text)
    found = {word for word in _WORD.findall(rest) if word not in _NOT_A_PLACE}
    return frozenset(found | paths)


def same_place(first: str, second: str) -> bool:
    """Whether two findings' locations can name the same place."""
    a, b = place_words(first), place_words(second)
    return not a or not b or bool(a & b)


def at_places(location: str, places: list[str] | None, every: list[str] | None = None) -> bool:
    """Whether a fix that changed `places` (None: unknown, so any) changed this location; with
    `every` place of the deliverable, a location that names none of them is unknown too."""
    if places is None:
        return True
    if not places:
        return False
    if unplaced(location, every):
        return True
    words = place_words(location)
    return any(words & place_words(place) for place in places)


def unplaced(location: str, every: list[str] | None = None) -> bool:
    """Whether a location names no place: empty, only words of no place, or, with `every` place
    of the deliverable, none of them."""
    words = place_words(location)
    return not words or (every is not None and not any(words & place_words(p) for p in every))
