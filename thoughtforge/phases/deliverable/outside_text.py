"""What an agent writes around a document that is no part of it: a fence, a preamble ("Here is
the revised plan:"), a trailing changelog ("Changes made:") or a note to the reader.

Read tolerantly where it can be cut off cleanly: fences around the whole document are unwrapped
(a fence in a fence too), HTML tags around it are taken off when they close in order at its end,
and a preamble before the document's first line or an afterword after its last (a changelog, a
"Note: I assumed …", a fenced block after the last table, with the rule that led into it) is
stripped, as is a whole-line `<!-- comment -->`; each is named so the log can say what was taken
off. A wrapper cut off at one end only, a note between parts of the document, a comment inside
a line or a mark of the edit (old words struck through `~~…~~`, "(fixes F1)") cannot be told
apart from the document: the answer is refused and the reason says why.
Lines the previous version already had are the document's own (a plan may have a section called
"Notes"); a document with no previous version (a distillation, a proposal) has nothing to tell a
note between its sections apart by, so such a note is its own too. A leading byte-order mark is
an encoding's, not the document's: it is dropped.
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


_NOTE = re.compile(
    r"[*_]{0,2}(?:notes?|n\.\s?b\.?|nb|p\.\s?s\.?|ps)[*_]{0,2}\s*[:.,-]", re.IGNORECASE
)
_FIRST_PERSON = re.compile(
    r"\bI(?:'ve|'m| have| am)\b|\bI\s+(?:\w+ed|kept|left|made|chose|did(?:n't| not)?|rewrote|"
    r"put|set|took|split|could(?:n't| not)?|was(?:n't| not)?)\b"
)
"""A note that speaks as the one who edited ("Note: I assumed …", "I've kept …") is to the
reader, not the document's ("Note: my sister brings the flowers" may be the plan's)."""
_RULE = re.compile(r"(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}")
_OPEN_TAGS = re.compile(r"(?:<([A-Za-z][\w-]*)(?:\s[^<>]*)?>\s*)+")
_CLOSE_TAGS = re.compile(r"(?:</([A-Za-z][\w-]*)\s*>\s*)+")
_TAG_NAME = re.compile(r"<(/?)([A-Za-z][\w-]*)")
_IDS = r"(?:F|#)?\d+(?:\s*(?:,|&|and)\s*(?:F|#)?\d+)*\s*[)\]]"
_EDIT_MARK = re.compile(
    r"~~[^~\n]+~~"
    r"|[(\[]\s*(?:fix|address|resolv|clos)\w*\s*:?\s*(?:(?:findings?|issues?)\s+)?"
    + _IDS
    + r"|[(\[]\s*findings?\s+"
    + _IDS,
    re.IGNORECASE,
)
"""Marks of the edit left in the text: old words struck through, a finding's id ("(fixes F1)")."""
BOM = "\ufeff"


@dataclass
class Separated:
    """The document out of an answer; `stripped` names what was taken off; `refused` says why
    the answer cannot be used (text to the reader that cannot be cut off cleanly)."""

    document: str
    stripped: list[str] = field(default_factory=list)
    refused: str | None = None


def unwrap(text: str) -> str:
    """The document inside one fence around it (chatter before or after the fence dropped);
    anything else as it was, stripped."""
    return _unfence(text)[0]


def separate(answer: str, previous: str | None) -> Separated:
    """The document in `answer`, whose previous version (if any) was `previous`."""
    document, chatter = _unfence(answer.strip().removeprefix(BOM))
    found = Separated(document.removeprefix(BOM))
    if chatter:
        inner = _FENCE.fullmatch(chatter)
        what = "a fence inside its fence" if inner else "the chatter around its fence"
        found.stripped.append(f"{what} ({_quote(chatter)})")
    known = {line.strip() for line in (previous or "").splitlines() if line.strip()}
    lines = _unwrap_html(found, found.document.splitlines(), known)
    start = _document_start(lines, previous, known)
    if start:
        found.stripped.append(f"a preamble ({_quote(_first(lines[:start]))})")
        lines = lines[start:]
    lines = _strip_trailing_fence(found, lines, known)
    end = _afterword_start(lines, known)
    if end is not None:
        tail = [line.strip() for line in lines[end:] if line.strip()]
        if any(_documents(line, known) for line in tail[1:]):
            if previous is not None:  # with none, a note among its sections is the document's
                found.refused = (
                    "the answer holds a note to the reader inside the document "
                    f"({tail[0][:_QUOTED]!r}), which cannot be told apart from it"
                )
        else:
            found.stripped.append(f"a note after the document ({_quote(tail[0])})")
            lines = _without_trailing_rules(lines[:end])
    lines = _strip_comments(found, lines, known)
    mark = _edit_mark(lines, known)
    if mark and found.refused is None:
        found.refused = (
            f"the answer marks its edits inside the document ({_quote(mark)}): "
            "a note to the reader, not the document"
        )
    found.document = "\n".join(lines).strip()
    return found


def _edit_mark(lines: list[str], known: set[str]) -> str | None:
    """The first mark of the edit in a line the previous version did not have: it cannot be cut
    off without rewriting the line (which words were meant?), so the answer is refused."""
    for line in lines:
        found = None if line.strip() in known else _EDIT_MARK.search(line)
        if found:
            return found.group(0)
    return None


def _unwrap_html(found: Separated, lines: list[str], known: set[str]) -> list[str]:
    """The lines inside HTML tags that open before the document and close, in order, after it;
    tags at one end only cannot be cut off cleanly (`found.refused`)."""
    body = [n for n, line in enumerate(lines) if line.strip()]
    head = [n for n in body if _OPEN_TAGS.fullmatch(lines[n].strip())]
    head = [n for k, n in enumerate(head) if n == body[k]]
    tail = [n for n in reversed(body) if _CLOSE_TAGS.fullmatch(lines[n].strip())]
    tail = [n for k, n in enumerate(tail) if n == body[-1 - k]][::-1]
    if any(lines[n].strip() in known for n in head + tail) or (not head and not tail):
        return lines
    opened = [m.group(2) for n in head for m in _TAG_NAME.finditer(lines[n]) if not m.group(1)]
    closed = [m.group(2) for n in tail for m in _TAG_NAME.finditer(lines[n]) if m.group(1)]
    if [name.lower() for name in opened] != [name.lower() for name in reversed(closed)]:
        ends = (
            "".join(lines[n].strip() for n in head)
            + " … "
            + "".join(lines[n].strip() for n in tail)
        )
        found.refused = (
            f"the answer is wrapped in HTML tags that do not close around it ({ends.strip()!r}), "
            "so they cannot be cut off cleanly"
        )
        return lines
    found.stripped.append(
        f"the HTML around it ({_quote(lines[head[0]])} … {_quote(lines[tail[-1]])})"
    )
    return lines[head[-1] + 1 : tail[0]]


def _strip_trailing_fence(found: Separated, lines: list[str], known: set[str]) -> list[str]:
    """Without a fenced block the answer ends with after the document's last table or heading
    (an echoed issue list, a JSON summary), unless the previous version had it."""
    body = [n for n, line in enumerate(lines) if line.strip()]
    if len(body) < 2 or not _FENCE.fullmatch(lines[body[-1]]):
        return lines
    closing = lines[body[-1]].strip()
    opening = next(
        (
            n
            for n in reversed(body[:-1])
            if _FENCE.fullmatch(lines[n]) and lines[n].strip().startswith(closing)
        ),
        None,
    )
    if opening is None or any(line.strip() in known for line in lines[opening : body[-1] + 1]):
        return lines
    before = lines[:opening]
    if not any(_documents(line, known) for line in before) or any(
        _FENCE.fullmatch(line) for line in before
    ):
        return lines
    found.stripped.append(f"a fenced block after the document ({_quote(lines[opening])})")
    return _without_trailing_rules(before)


def _without_trailing_rules(lines: list[str]) -> list[str]:
    """Without the blank lines and horizontal rules that led into what was cut off after them."""
    kept = list(lines)
    while kept and (not kept[-1].strip() or _RULE.fullmatch(kept[-1].strip())):
        kept.pop()
    return kept


def _strip_comments(found: Separated, lines: list[str], known: set[str]) -> list[str]:
    """Without the new HTML comments that fill whole lines (a note to whoever reads the source);
    a new comment inside a line of the document refuses the answer."""
    kept: list[str] = []
    fenced = cut = False
    n = 0
    while n < len(lines):
        stripped = lines[n].strip()
        fenced = fenced != bool(_FENCE.fullmatch(lines[n]))
        if fenced or "<!--" not in stripped or stripped in known:
            if stripped or not cut or (kept and kept[-1].strip()):
                kept.append(lines[n])  # the blank line after a cut comment goes with it
            cut = False
            n += 1
            continue
        end = next((k for k in range(n, len(lines)) if "-->" in lines[k]), n)
        comment = "\n".join(lines[n : end + 1]).strip()
        if not (comment.startswith("<!--") and comment.endswith("-->")):
            found.refused = (
                f"the answer holds a comment to the reader inside the document ({_quote(stripped)})"
            )
            return lines
        found.stripped.append(f"a comment to the reader ({_quote(comment)})")
        cut = True
        n = end + 1
    return kept


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
        if _AFTERWORD.fullmatch(stripped) or (
            _NOTE.match(stripped) and _FIRST_PERSON.search(stripped)
        ):
            return n
        if _CHATTER.match(stripped) and not any(_documents(line, known) for line in lines[n:]):
            return n  # a model's closing words; in the middle, such words may be the plan's
    return None


def _documents(line: str, known: set[str]) -> bool:
    """A line that belongs to a document: one its previous version had, a table row, a heading."""
    stripped = line.strip()
    return stripped in known or stripped.startswith("|") or _HEADING.match(stripped) is not None


def _unfence(text: str) -> tuple[str, str]:
    """The inside of the fences around the whole text (a fence in a fence too), and the chatter
    dropped around them (an inner fence's line when there was none)."""
    inner, chatter = _unfence_once(text)
    while inner != text.strip():
        text = inner
        inner, more = _unfence_once(text)
        if inner != text.strip():
            chatter = chatter or more or text.splitlines()[0]
    return inner, chatter


def _unfence_once(text: str) -> tuple[str, str]:
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
