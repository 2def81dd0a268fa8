"""The review context: the whole codebase when it fits, else a manifest and the latest changes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from thoughtforge.plugins.code.context.codebase import MAX_FILE_BYTES, CodebaseFile, codebase_files
from thoughtforge.plugins.code.context.fitting import Fit, fit_largest_first, fit_note
from thoughtforge.plugins.code.context.git_diff import diff_base_of, diff_chunks
from thoughtforge.plugins.code.context.rendering import fence_for, file_block
from thoughtforge.plurals import plural
from thoughtforge.prompting import estimate_tokens

_NOTE_MANIFEST_CUT = "[… {} more files not listed, to fit the budget …]"


class ReviewContext(BaseModel):
    """The codebase as the reviewer sees it; `truncated` means something was cut to fit."""

    text: str
    mode: Literal["codebase", "manifest"]
    files: list[str]
    """Every text file of the codebase, shown in full ("codebase") or listed ("manifest")."""
    not_shown: list[str] = []
    """Binary or oversized files of the codebase: listed, never read."""
    tokens: int
    """Estimated size of the whole codebase shown in full."""
    diff_base: str | None = None
    """The commit the manifest mode's diff compares with; None in codebase mode or with no base."""
    truncated: bool = False


def review_context(project_dir: Path, budget_tokens: int, since: str | None) -> ReviewContext:
    """The whole codebase when it fits `budget_tokens`, else a manifest and the changes since
    `since` (a commit: the last iteration's), so the reviewer always sees what the fix did."""
    files = codebase_files(project_dir)
    shown = [f for f in files if f.content is not None]
    not_shown = [f.path for f in files if f.content is None]
    full = _codebase_text(files)
    tokens = estimate_tokens(full)
    paths = [f.path for f in shown]
    if tokens <= budget_tokens:
        return ReviewContext(
            text=full, mode="codebase", files=paths, not_shown=not_shown, tokens=tokens
        )
    diff_base, base_note = diff_base_of(project_dir, since)
    chunks = diff_chunks(project_dir, diff_base) if diff_base else []
    text, truncated = _manifest_text(files, budget_tokens, tokens, base_note, chunks)
    return ReviewContext(
        text=text,
        mode="manifest",
        files=paths,
        not_shown=not_shown,
        tokens=tokens,
        diff_base=diff_base,
        truncated=truncated,
    )


def _codebase_text(files: Sequence[CodebaseFile]) -> str:
    if not files:
        return "The project has no code files yet.\n"
    shown = [f for f in files if f.content is not None]
    intro = f"The codebase: {plural(len(shown), 'file')}, each shown in full.\n\n"
    blocks = "".join(file_block(f.path, f.content or "", f.lines) for f in shown)
    return intro + blocks + _not_shown_note(files)


def _not_shown_note(files: Sequence[CodebaseFile]) -> str:
    unread = [f"{f.path} ({f.size:,} bytes)" for f in files if f.content is None]
    if not unread:
        return ""
    return f"Not shown (binary, or over {MAX_FILE_BYTES:,} bytes): {', '.join(unread)}.\n"


def _manifest_text(
    files: Sequence[CodebaseFile],
    budget: int,
    total_tokens: int,
    base_note: str,
    chunks: list[tuple[str, str]],
) -> tuple[str, bool]:
    """Manifest first, capped at half the budget when the diff needs the rest; the diff after."""
    intro = (
        f"The codebase ({plural(len(files), 'file')}, about {total_tokens:,} tokens) does not "
        f"fit the budget of {budget:,} tokens, so it is shown as a manifest of every file, "
        f"then {base_note}.\n"
    )
    entries = [_manifest_entry(f) for f in files]
    diff_header = f"## Changes: {base_note}\n"
    rest = budget - estimate_tokens(intro + "## Manifest\n\n" + diff_header)
    diff_tokens = sum(estimate_tokens(text) for _, text in chunks) + 10
    manifest, manifest_cut = _fit_lines(entries, max(rest - diff_tokens, rest // 2))
    diff, diff_cut = _diff_text(chunks, rest - estimate_tokens(manifest))
    text = f"{intro}\n## Manifest\n{manifest}\n{diff_header}{diff}"
    return text, manifest_cut or diff_cut


def _manifest_entry(file: CodebaseFile) -> str:
    if file.content is None:
        return f"- {file.path} — {file.size:,} bytes, not shown (binary or too large)"
    return f"- {file.path} — {plural(file.lines, 'line')}, {file.size:,} bytes"


def _fit_lines(entries: list[str], room: int) -> tuple[str, bool]:
    """Whole entries while they fit, then a note of how many were left out."""
    if sum(estimate_tokens(f"{entry}\n") for entry in entries) <= room:
        return "".join(f"{entry}\n" for entry in entries), False
    room -= estimate_tokens(_NOTE_MANIFEST_CUT.format(len(entries)))
    kept: list[str] = []
    for entry in entries:
        room -= estimate_tokens(f"{entry}\n")
        if room < 0:
            break
        kept.append(entry)
    note = _NOTE_MANIFEST_CUT.format(len(entries) - len(kept))
    return "".join(f"{entry}\n" for entry in [*kept, note]), True


def _diff_text(chunks: list[tuple[str, str]], room: int) -> tuple[str, bool]:
    if not chunks:
        return "No changes to the code.\n", False
    fence = fence_for("".join(text for _, text in chunks))

    def render(texts: list[str | None]) -> str:
        return f"{fence}diff\n{''.join(t for t in texts if t is not None)}{fence}\n"

    def note(fit: Fit) -> str:
        return fit_note(fit, "each file's changes")

    fit = fit_largest_first(chunks, room, render, note)
    return render(fit.texts) + note(fit), bool(fit.cut or fit.left_out)
