"""A diff as a person reads a change: the words that went and came, not patch syntax.

git's unified diff marks whole lines: a table row of 600 characters whose one figure changed shows
as two near-identical lines a reader has to compare by eye. Here each run of changed lines is
compared word by word, the unchanged stretch of a long line is cut to the words around the
change, and each change says where it is (its line and the heading above it). The page marks the
words with `<ins>`/`<del>`; a terminal with `[-removed-]` and `{+added+}` (readable without
colour, as `git diff --word-diff=plain` does).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from difflib import SequenceMatcher, unified_diff
from typing import Literal

from pydantic import BaseModel

from thoughtforge.core.diff_order import FileDiff, by_reading_order

WORD_DIFF_FENCE = "word-diff"
"""The info string of a fenced block holding `as_text`'s marks: the page renders it as History
shows a change (struck and underlined words), a terminal prints the marks."""
KEPT_WORDS = 10
"""Unchanged words kept on each side of a change in a long line."""
MAX_COMPARED_TOKENS = 4000
"""Beyond this, a run of lines is shown as removed then added, not compared word by word."""
SIMILAR_ENOUGH = 0.4
"""Below this likeness, a rewritten run reads better as the old words then the new."""

_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@ ?(.*)")
_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")
_HEADING = re.compile(r"^#{1,6}\s+\S")


class Piece(BaseModel):
    kind: Literal["same", "added", "removed"]
    text: str


class Passage(BaseModel):
    """One run of changed lines: where it is, and its lines as pieces."""

    line: int
    heading: str
    lines: list[list[Piece]]

    @property
    def where(self) -> str:
        under = f", under “{self.heading}”" if self.heading else ""
        return f"line {self.line}{under}"


class FileChange(BaseModel):
    path: str
    what: Literal["changed", "added", "removed", "binary"]
    bookkeeping: bool
    passages: list[Passage]

    @property
    def summary(self) -> str:
        """What happened to the file, in words."""
        if self.what != "changed":
            return {"added": "new file", "removed": "removed", "binary": "a binary file changed"}[
                self.what
            ]
        places = len(self.passages)
        return f"changed in {places} place{'' if places == 1 else 's'}" if places else "renamed"


def changes_in_words(diff: str) -> list[FileChange]:
    """Each file of `diff` in reading order (the deliverable first, bookkeeping last), its
    changed passages word by word."""
    return [in_words(file) for file in by_reading_order(diff)]


def in_words(file: FileDiff) -> FileChange:
    header, _, body = file.text.partition("\n@@")
    what: Literal["changed", "added", "removed", "binary"] = "changed"
    if "\nnew file mode" in header:
        what = "added"
    elif "\ndeleted file mode" in header:
        what = "removed"
    elif "\nBinary files " in header or "\nGIT binary patch" in header:
        what = "binary"
    passages = list(_passages(("@@" + body).splitlines())) if body else []
    return FileChange(path=file.path, what=what, bookkeeping=file.bookkeeping, passages=passages)


def text_change(path: str, before: str, after: str) -> FileChange:
    """Two versions of one text (no git between them) as a change, each passage under the
    heading above it; no passage when only blank space changed."""
    old, new = before.splitlines(), after.splitlines()
    lines = list(unified_diff(old, new, lineterm="", n=max(len(old), len(new))))[2:]
    passages = [passage for passage in _passages(lines) if passage.lines]
    return FileChange(path=path, what="changed", bookkeeping=False, passages=passages)


def as_text(changes: list[FileChange]) -> str:
    """The changes for a terminal: each file and passage named, removed words as `[-…-]`, added
    ones as `{+…+}`; bookkeeping files only named, at the end."""
    shown = [change for change in changes if not change.bookkeeping]
    kept = [change.path for change in changes if change.bookkeeping]
    blocks = []
    for change in shown:
        lines = [f"{change.path} — {change.summary}"]
        for passage in change.passages:
            lines.append(f"  {passage.where}:")
            lines.extend(f"    {_marked(pieces)}" for pieces in passage.lines)
        blocks.append("\n".join(lines))
    if kept:
        blocks.append(f"ThoughtForge's bookkeeping also changed (not shown): {', '.join(kept)}")
    return "\n\n".join(blocks)


_MARKS: dict[str, tuple[str, str]] = {
    "same": ("", ""),
    "removed": ("[-", "-]"),
    "added": ("{+", "+}"),
}
_MARKED = re.compile(r"\[-(.*?)-\]|\{\+(.*?)\+\}")


def _marked(pieces: list[Piece]) -> str:
    return "".join(_MARKS[p.kind][0] + p.text + _MARKS[p.kind][1] for p in pieces)


def marked_pieces(line: str) -> list[Piece]:
    """A line of `as_text` back as its pieces (the marks read, the rest unchanged text)."""
    pieces: list[Piece] = []
    at = 0
    for mark in _MARKED.finditer(line):
        if mark.start() > at:
            pieces.append(Piece(kind="same", text=line[at : mark.start()]))
        removed, added = mark.group(1), mark.group(2)
        pieces.append(
            Piece(kind="removed", text=removed)
            if removed is not None
            else Piece(kind="added", text=added or "")
        )
        at = mark.end()
    if at < len(line):
        pieces.append(Piece(kind="same", text=line[at:]))
    return pieces


def _passages(lines: list[str]) -> Iterator[Passage]:
    """The change runs of a file's hunks, each with its new line number and the last heading
    before it: the one a hunk's header names (git finds it in the whole document), else the last
    seen in the hunk's context."""
    heading = ""
    removed: list[str] = []
    added: list[str] = []
    old_line = new_line = start = 0

    def flush() -> Iterator[Passage]:
        if removed or added:
            yield Passage(line=start, heading=heading, lines=_compared(removed, added))
        removed.clear()
        added.clear()

    for line in lines:
        if hunk := _HUNK.match(line):
            yield from flush()
            old_line, new_line = int(hunk[1]), int(hunk[2])
            if _HEADING.match(hunk[3]):
                heading = hunk[3].lstrip("#").strip()
            continue
        mark, text = line[:1], line[1:]
        if mark in "-+" and not (removed or added):
            start = new_line or old_line
        if mark == "-":
            removed.append(text)
            old_line += 1
        elif mark == "+":
            added.append(text)
            new_line += 1
        elif mark == " ":
            yield from flush()
            if _HEADING.match(text):
                heading = text.lstrip("#").strip()
            old_line += 1
            new_line += 1
    yield from flush()


def _compared(removed: list[str], added: list[str]) -> list[list[Piece]]:
    """The run's lines as pieces: word by word when old and new are alike, else the old lines
    removed then the new added. Lines left wholly unchanged are dropped."""
    before, after = "\n".join(removed), "\n".join(added)
    old, new = _TOKEN.findall(before), _TOKEN.findall(after)
    pieces: list[Piece] = []
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    if (
        removed
        and added
        and len(old) + len(new) <= MAX_COMPARED_TOKENS
        and matcher.ratio() >= SIMILAR_ENOUGH
    ):
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                pieces.append(Piece(kind="same", text="".join(old[i1:i2])))
                continue
            if i2 > i1:
                pieces.append(Piece(kind="removed", text="".join(old[i1:i2])))
            if j2 > j1:
                pieces.append(Piece(kind="added", text="".join(new[j1:j2])))
        rows = _lines_of(_coalesced(pieces))
    else:
        rows = [[Piece(kind="removed", text=text)] for text in removed if text.strip()]
        rows += [[Piece(kind="added", text=text)] for text in added if text.strip()]
    return [_trimmed(row) for row in rows if any(p.kind != "same" for p in row)]


def _coalesced(pieces: list[Piece]) -> list[Piece]:
    """Changes apart by a space only read as one: the old words, then the new."""
    out: list[Piece] = []
    removed = added = ""
    for index, piece in enumerate(pieces):
        following = pieces[index + 1] if index + 1 < len(pieces) else None
        if piece.kind == "removed":
            removed += piece.text
        elif piece.kind == "added":
            added += piece.text
        elif (
            (removed or added)
            and following is not None
            and not piece.text.strip()
            and "\n" not in piece.text
        ):
            removed, added = removed + piece.text, added + piece.text
        else:
            out += _changed(removed, added)
            removed = added = ""
            out.append(piece)
    return out + _changed(removed, added)


def _changed(removed: str, added: str) -> list[Piece]:
    pieces = [Piece(kind="removed", text=removed)] if removed else []
    return pieces + ([Piece(kind="added", text=added)] if added else [])


def _lines_of(pieces: list[Piece]) -> list[list[Piece]]:
    """Pieces cut at their newlines into rows."""
    rows: list[list[Piece]] = [[]]
    for piece in pieces:
        for index, part in enumerate(piece.text.split("\n")):
            if index:
                rows.append([])
            if part:
                rows[-1].append(Piece(kind=piece.kind, text=part))
    return rows


def _trimmed(row: list[Piece]) -> list[Piece]:
    """The row with each long unchanged stretch cut to the words beside the change."""
    out = []
    for index, piece in enumerate(row):
        if piece.kind != "same":
            out.append(piece)
            continue
        words = piece.text.split(" ")
        first, last = index == 0, index == len(row) - 1
        keep = KEPT_WORDS * (1 if first or last else 2)
        if len(words) <= keep + 2:
            out.append(piece)
        elif first:
            out.append(Piece(kind="same", text="… " + " ".join(words[-KEPT_WORDS:])))
        elif last:
            out.append(Piece(kind="same", text=" ".join(words[:KEPT_WORDS]) + " …"))
        else:
            head, tail = " ".join(words[:KEPT_WORDS]), " ".join(words[-KEPT_WORDS:])
            out.append(Piece(kind="same", text=f"{head} … {tail}"))
    return out
