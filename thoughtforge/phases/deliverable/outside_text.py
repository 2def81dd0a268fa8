"""What an agent writes around a document that is no part of it: a fence, a preamble ("Here is
the revised plan:"), a trailing changelog ("Changes made:") or a note to the reader.

Read tolerantly where it can be cut off cleanly: one fence around the whole document is unwrapped,
and a preamble before the document's first line or an afterword after its last is stripped, each
named so the log can say what was taken off. A note between parts of the document cannot be told
apart from the document: it is reported, and the answer refused. Lines the previous version
already had are the document's own (a plan may have a section called "Notes").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_CHATTER_CHARS = 400
_QUOTED = 60
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*([\w+.-]*)[ \t]*")
_HEADING = re.compile(r"#{1,6}\s")
_NO_CHATTER = ("|", "---", "+++", "@@", "diff ", "***")
"""How lines of a table or a diff begin: never a model's chatter."""
_AFTERWORD = re.compile(
    r"(?:#{1,6}\s*)?[*_]{0,2}\s*(?:changes?(?: made| applied)?|change ?log|summary of (?:the )?"
    r"(?:changes|edits|revisions)|what (?:i )?changed|revisions? made|edits made|updates made|"
    r"notes?(?: to the reader)?|explanation of changes)\s*[*_]{0,2}\s*:?\s*[*_]{0,2}\s*"
    r"|(?:[*_]{0,2}\s*)?(?:changes made|change ?log|summary of changes|what changed|"
    r"note to the reader)\s*[*_]{0,2}\s*:.*",
    re.IGNORECASE,
)
_CHATTER = re.compile(
    r"[*_>\s]*(?:here(?:'s| is| are)\b|below is\b|sure[,!.]|certainly[,!.]|of course[,!.]|"
    r"i(?:'ve| have) (?:updated|revised|fixed|addressed|made|applied|rewritten|changed)\b|"
    r"i hope\b|hope this\b|let me know\b|feel free\b|the (?:revised|updated|fixed|complete) "
    r"(?:plan|document)\b)",
    re.IGNORECASE,
)


@dataclass
class Separated:
    """The document out of an answer; `stripped` names what was taken off; `inside` quotes a
    note found between parts of the document (then the answer cannot be used)."""

    document: str
    stripped: list[str] = field(default_factory=list)
    inside: str | None = None


def unwrap(text: str) -> str:
    """The document inside one fence around it (chatter before or after the fence dropped);
    anything else as it was, stripped."""
    return _unfence(text)[0]


def separate(answer: str, previous: str | None) -> Separated:
    """The document in `answer`, whose previous version (if any) was `previous`."""
    document, chatter = _unfence(answer)
    found = Separated(document)
    if chatter:
        found.stripped.append(f"the chatter around its fence ({_quote(chatter)})")
    known = {line.strip() for line in (previous or "").splitlines() if line.strip()}
    lines = found.document.splitlines()
    start = _document_start(lines, previous, known)
    if start:
        found.stripped.append(f"a preamble ({_quote(_first(lines[:start]))})")
        lines = lines[start:]
    end = _afterword_start(lines, known)
    if end is not None:
        tail = [line.strip() for line in lines[end:] if line.strip()]
        if any(_documents(line, known) for line in tail[1:]):
            found.inside = tail[0][:_QUOTED]
        else:
            found.stripped.append(f"a note after the document ({_quote(tail[0])})")
            lines = lines[:end]
    found.document = "\n".join(lines).strip()
    return found


def _document_start(lines: list[str], previous: str | None, known: set[str]) -> int:
    """Where the document begins, past a preamble that can be cut off cleanly (0: none)."""
    first = next((line.rstrip() for line in (previous or "").splitlines() if line.strip()), None)
    at = next((n for n, line in enumerate(lines) if first and line.rstrip() == first), None)
    if at is None:
        at = _after_leading_chatter(lines)
    before = "\n".join(lines[:at]).strip()
    if (
        not at
        or not before
        or not _chatter(before)
        or any(line.strip() in known for line in lines[:at])
    ):
        return 0
    return at


def _after_leading_chatter(lines: list[str]) -> int:
    """Past a first paragraph that is a model talking (`Here is …`, `Sure, …`)."""
    first = next((n for n, line in enumerate(lines) if line.strip()), None)
    if first is None or not _CHATTER.match(lines[first]):
        return 0
    end = next((n for n in range(first, len(lines)) if not lines[n].strip()), len(lines))
    return end if end < len(lines) else 0


def _afterword_start(lines: list[str], known: set[str]) -> int | None:
    """The first new line, after the document began, that opens a changelog or a note."""
    for n, line in enumerate(lines):
        stripped = line.strip()
        if n == 0 or not stripped or stripped in known:
            continue
        if _AFTERWORD.fullmatch(stripped):
            return n
        if _CHATTER.match(stripped) and not any(_documents(line, known) for line in lines[n:]):
            return n  # a model's closing words; in the middle, such words may be the plan's
    return None


def _documents(line: str, known: set[str]) -> bool:
    """A line that belongs to a document: one its previous version had, a table row, a heading."""
    stripped = line.strip()
    return stripped in known or stripped.startswith("|") or _HEADING.match(stripped) is not None


def _unfence(text: str) -> tuple[str, str]:
    """The inside of one fence around the whole text, and the chatter dropped around it."""
    stripped = text.strip()
    lines = stripped.splitlines()
    opening = next((n for n, line in enumerate(lines) if _FENCE.fullmatch(line)), None)
    if opening is None:
        return stripped, ""
    marker = _FENCE.fullmatch(lines[opening])
    assert marker is not None
    fence = marker.group(1)
    closing = next(
        (
            n
            for n in range(len(lines) - 1, opening, -1)
            if lines[n].strip().startswith(fence[0] * len(fence))
            and not lines[n].strip().strip(fence[0])
        ),
        None,
    )
    before = "\n".join(lines[:opening])
    after = "\n".join(lines[closing + 1 :]) if closing is not None else ""
    if not (_chatter(before) and _chatter(after)):
        return stripped, ""
    inner = lines[opening + 1 : closing] if closing is not None else lines[opening + 1 :]
    return "\n".join(inner).strip(), (before.strip() or after.strip())


def _chatter(text: str) -> bool:
    """A model's line or two around the document: short, and no part of a document."""
    return len(text) <= _CHATTER_CHARS and not any(
        _HEADING.match(line.strip()) or line.startswith(_NO_CHATTER) for line in text.splitlines()
    )


def _first(lines: list[str]) -> str:
    return next(line.strip() for line in lines if line.strip())


def _quote(text: str) -> str:
    line = _first(text.splitlines()) if "\n" in text else text.strip()
    return repr(line if len(line) <= _QUOTED else line[: _QUOTED - 1] + "…")
