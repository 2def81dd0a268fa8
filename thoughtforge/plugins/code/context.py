"""What the code-mode polish loop shows its reviewer and its fixer, within a token budget.

**The codebase** is the deliverable: every file git would track in the project (tracked, or
untracked and not ignored), minus what is not the deliverable:

* ThoughtForge's own files (`staging.is_own`: state files, the polish record, `docs/*.md`, which
  are the spec, `resources/`) and its private ones (`staging.PRIVATE_FILES`);
* `.git`, symlinks (a link may lead out of the project; what it points to inside is listed
  anyway), dependency and cache folders that are never the deliverable (`SKIPPED_DIRS`);
* binary files and files over `MAX_FILE_BYTES`, which are named (`not_shown`) but never read.

**Review context** (`review_context`): the whole codebase, one fenced block per file, when it fits
the budget (mode "codebase"). Otherwise (mode "manifest") every file with its size, then
`git diff` of the code since the last iteration's commit (`since`) plus new untracked files. With
no usable `since` the last commit's changes stand in for it; a repository with a single commit
has no diff to show, which the text says. What does not fit is cut and named: the manifest loses
its last entries, the diff is fitted as below. `truncated` tells the caller to log the spec's
warning.

**Fix context** (`fix_context`): the files the review's issue `location`s name, in order of first
mention. A location is `src/app.py:42`, `src/app.py line 42`, `app.py#L42`, `src/app.py (function
foo)` and the like: line numbers and anchors are stripped. Prose ("general") names no file and is
`ignored`. A path outside the project (`../`, absolute, a symlink leading out), in `.git`, one of
ThoughtForge's files, ignored by git or binary is `refused` and never read. A path that does not
exist is `missing` and noted ("Referenced file not found").

**Fitting** (files for the fixer, per-file diffs for the reviewer): when they do not fit, the
largest is cut first, down to the size of the next largest, then both, and so on; a cut keeps the
start, ends on a whole line and is noted. When even `MIN_PART_TOKENS` each does not fit, the last
ones (in order of mention, or path order for a diff) are left out and named instead.

Token counts are `prompting.estimate_tokens` estimates, so "fits" means "about fits". Git is run
as a subprocess (`ls-files`, `diff`, `rev-parse`), reading only; nothing here writes.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

from pydantic import BaseModel

from thoughtforge.core.git_repo import SAFE_OPTIONS
from thoughtforge.core.staging import PRIVATE_FILES, is_own
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.prompting import estimate_tokens, truncate_text
from thoughtforge.prompting.context_window import TRUNCATION_MARK

MAX_FILE_BYTES = 1_000_000
"""A bigger file (a data dump, a bundle) is named with its size but never read."""
SKIPPED_DIRS = frozenset(
    {
        *("node_modules", "__pycache__", ".venv", "venv", ".tox", ".nox"),
        *(".mypy_cache", ".pytest_cache", ".ruff_cache", ".git"),
    }
)
"""Folders that are never the deliverable, skipped even when the project forgot to ignore them."""
MIN_PART_TOKENS = 64
"""A file (or a file's diff) cut shorter than this is left out instead, and named."""
NAMED_LEFT_OUT = 20
"""At most this many left-out files are named; the rest are counted."""
_SNIFF_BYTES = 8000  # git's own binary test: a NUL byte in the first 8000 bytes
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


class FixContext(BaseModel):
    """The files a review's issues name, for the fixer; each list is in order of first mention."""

    text: str
    files: list[str]
    """Files shown (relative paths inside the project), whole or cut."""
    missing: list[str] = []
    """Paths inside the project that the review names but that do not exist."""
    truncated: list[str] = []
    """Files cut to fit the budget (in `files`, their start shown)."""
    left_out: list[str] = []
    """Files left out for lack of room (not in `files`): the last mentioned go first."""
    refused: list[str] = []
    """Locations naming a path that is not read: outside the project, `.git`, ThoughtForge's own
    files, ignored by git, binary or a directory."""
    ignored: list[str] = []
    """Locations naming no path at all ("general", "error handling")."""


class _File(BaseModel):
    path: str
    size: int
    content: str | None
    """None for a binary or oversized file."""

    @property
    def lines(self) -> int:
        return _line_count(self.content or "")


# --- review context -----------------------------------------------------------------------------


def review_context(project_dir: Path, budget_tokens: int, since: str | None) -> ReviewContext:
    """The whole codebase when it fits `budget_tokens`, else a manifest and the changes since
    `since` (a commit: the last iteration's), so the reviewer always sees what the fix did."""
    files = _codebase(project_dir)
    shown = [f for f in files if f.content is not None]
    not_shown = [f.path for f in files if f.content is None]
    full = _codebase_text(files)
    tokens = estimate_tokens(full)
    paths = [f.path for f in shown]
    if tokens <= budget_tokens:
        return ReviewContext(
            text=full, mode="codebase", files=paths, not_shown=not_shown, tokens=tokens
        )
    diff_base, base_note = _diff_base(project_dir, since)
    chunks = _diff_chunks(project_dir, diff_base) if diff_base else []
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


def _codebase_text(files: Sequence[_File]) -> str:
    if not files:
        return "The project has no code files yet.\n"
    shown = [f for f in files if f.content is not None]
    intro = f"The codebase: {_plural(len(shown), 'file')}, each shown in full.\n\n"
    blocks = "".join(_block(f.path, f.content or "", f.lines) for f in shown)
    return intro + blocks + _not_shown_note(files)


def _not_shown_note(files: Sequence[_File]) -> str:
    unread = [f"{f.path} ({f.size:,} bytes)" for f in files if f.content is None]
    if not unread:
        return ""
    return f"Not shown (binary, or over {MAX_FILE_BYTES:,} bytes): {', '.join(unread)}.\n"


def _manifest_text(
    files: Sequence[_File],
    budget: int,
    total_tokens: int,
    base_note: str,
    chunks: list[tuple[str, str]],
) -> tuple[str, bool]:
    """Manifest first, capped at half the budget when the diff needs the rest; the diff after."""
    intro = (
        f"The codebase ({_plural(len(files), 'file')}, about {total_tokens:,} tokens) does not "
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


def _manifest_entry(file: _File) -> str:
    if file.content is None:
        return f"- {file.path} — {file.size:,} bytes, not shown (binary or too large)"
    return f"- {file.path} — {_plural(file.lines, 'line')}, {file.size:,} bytes"


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
    fence = _fence("".join(text for _, text in chunks))

    def render(texts: list[str | None]) -> str:
        return f"{fence}diff\n{''.join(t for t in texts if t is not None)}{fence}\n"

    def note(fit: _Fit) -> str:
        return _fit_note(fit, "each file's changes")

    fit = _fit_largest_first(chunks, room, render, note)
    return render(fit.texts) + note(fit), bool(fit.cut or fit.left_out)


# --- fix context --------------------------------------------------------------------------------


def fix_context(project_dir: Path, locations: list[str], budget_tokens: int) -> FixContext:
    """The files the review's issue `locations` name, largest cut first to fit `budget_tokens`.

    Nothing outside `project_dir` is ever read: the path is resolved (symlinks followed) before
    anything is opened, and must land inside the project on a file of the codebase.
    """
    root = project_dir.resolve()
    listed = set(_listed(project_dir))
    found = FixContext(text="", files=[])
    read: dict[str, _File | None] = {}
    for location in locations:
        _classify(root, listed, read, location, found)
    files = [file for path in found.files if (file := read[path]) is not None]
    intro = "The files the review names:\n\n" if files else "The review names no file to show.\n"
    fences = [_fence(f.content or "") for f in files]
    notes = _fix_notes(found)

    def render(texts: list[str | None]) -> str:
        blocks = zip(files, texts, fences, strict=True)
        return intro + "".join(
            _block(f.path, text, f.lines, fence) for f, text, fence in blocks if text is not None
        )

    def note(fit: _Fit) -> str:
        return notes + _fit_note(fit, "each file")

    parts = [(f.path, f.content or "") for f in files]
    fit = _fit_largest_first(parts, budget_tokens, render, note)
    found.truncated = [name for name, _ in fit.cut]
    found.left_out = fit.left_out
    found.files = [f.path for f, text in zip(files, fit.texts, strict=True) if text is not None]
    found.text = render(fit.texts) + note(fit)
    return found


def _fix_notes(found: FixContext) -> str:
    notes = ""
    if found.missing:
        notes += (
            "Referenced file not found (named by the review but not present): "
            f"{', '.join(found.missing)}.\n"
        )
    if found.refused:
        notes += (
            "Not read (outside the project, or not part of the code): "
            f"{', '.join(found.refused)}.\n"
        )
    return notes


_STRIP = "`'\"()[]<>{},;"
_PATH_LIKE = re.compile(r"^[\w.\-/~+@]+$")
_SUFFIX = re.compile(r"\.[A-Za-z]\w*$")


def _classify(
    root: Path,
    listed: set[str],
    read: dict[str, _File | None],
    location: str,
    found: FixContext,
) -> None:
    """Add what `location` names to `found`: every codebase file it names, or else its first
    path-like word, as missing or refused; prose names nothing."""
    words = [_strip_position(location), *map(_strip_position, re.split(r"[\s,]+", location))]
    words = [word for word in dict.fromkeys(words) if word]
    named = [p for w in words if (p := _inside(root, w)) is not None and p in listed]
    for path in named:
        if path not in read:
            read[path] = _read(root / path, path)
        file = read[path]
        if file is None or file.content is None:
            _add(found.refused, path)  # binary, oversized, or not a regular file
        else:
            _add(found.files, path)
    if named:
        return
    candidates = [word for word in words if _looks_like_path(word)]
    if not candidates:
        _add(found.ignored, location)
        return
    word = candidates[0]
    path = _inside(root, word)
    if path is None or path == "." or not _deliverable(path):
        _add(found.refused, word)
    elif (root / path).exists() or (root / path).is_symlink():
        _add(found.refused, path)  # a directory, a file git ignores, a link to nowhere
    else:
        _add(found.missing, path)


def _strip_position(word: str) -> str:
    """`src/app.py:42`, `app.py#L42`, `tests/t.py::test_x`, `` `a.py` `` → the path alone."""
    word = word.strip().strip(_STRIP)
    word = word.split("#", 1)[0].split(":", 1)[0]
    return word.strip().strip(_STRIP).rstrip(".")


def _looks_like_path(word: str) -> bool:
    return bool(_PATH_LIKE.match(word)) and ("/" in word or bool(_SUFFIX.search(word)))


def _inside(root: Path, word: str) -> str | None:
    """`word` as a relative path inside `root` once resolved (symlinks followed), or None."""
    try:
        resolved = (root / word).resolve()
    except (OSError, RuntimeError):
        return None
    if not resolved.is_relative_to(root):
        return None
    return resolved.relative_to(root).as_posix()


def _add(items: list[str], item: str) -> None:
    if item not in items:
        items.append(item)


# --- the codebase -------------------------------------------------------------------------------


def _codebase(project_dir: Path) -> list[_File]:
    """Every deliverable file, sorted by path; binary and oversized ones without content."""
    files = (_read(project_dir / path, path) for path in _listed(project_dir))
    return [file for file in files if file is not None]


def _listed(project_dir: Path) -> list[str]:
    """The deliverable's paths as git sees them: tracked, or untracked and not ignored."""
    listed = _git(project_dir, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    return sorted({path for path in _names(listed) if _deliverable(path)})


def _deliverable(path: str) -> bool:
    """Not ThoughtForge's (own or private), not `.git`, not in a dependency or cache folder."""
    parts = PurePosixPath(path).parts
    if not parts or is_own(path) or path.startswith(PRIVATE_FILES):
        return False
    return not any(part in SKIPPED_DIRS for part in parts)


def _read(full: Path, path: str) -> _File | None:
    """The file's text; None for what is not a regular file (a symlink, a deleted tracked file)."""
    if full.is_symlink() or not full.is_file():
        return None
    try:
        size = full.stat().st_size
        if size > MAX_FILE_BYTES:
            return _File(path=path, size=size, content=None)
        data = full.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:_SNIFF_BYTES]:
        return _File(path=path, size=len(data), content=None)
    return _File(path=path, size=len(data), content=data.decode("utf-8", errors="replace"))


def _names(output: bytes) -> list[str]:
    """NUL-separated paths; a name that is not UTF-8 cannot be shown in a prompt and is left out."""
    names: list[str] = []
    for raw in output.split(b"\0"):
        try:
            name = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if name and not name.endswith("/"):
            names.append(name)
    return names


# --- git diff -----------------------------------------------------------------------------------


def _diff_base(project_dir: Path, since: str | None) -> tuple[str | None, str]:
    """The commit to diff against and how the text names it.

    A diff against the empty tree is the whole codebase again, so without a usable `since` the
    last commit's changes stand in for "what changed lately", and a first commit has none.
    """
    if since and (commit := _commit(project_dir, since)):
        return commit, f"the changes since the last iteration ({since}, `git diff {since}`)"
    why = f"'{since}' is not a commit here" if since else "no previous iteration is recorded"
    if commit := _commit(project_dir, "HEAD~1"):
        return commit, f"the changes of the last commit ({why}; `git diff HEAD~1`)"
    return None, f"no changes ({why}, and there is no earlier commit to compare with)"


def _commit(project_dir: Path, ref: str) -> str | None:
    if ref.startswith("-"):
        return None
    done = _run(project_dir, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if done.returncode != 0:
        return None
    return done.stdout.decode().strip() or None


def _diff_chunks(project_dir: Path, base: str) -> list[tuple[str, str]]:
    """(path, diff) per changed deliverable file: tracked changes since `base`, then new files."""
    options = ("--no-renames", "--no-color", "--no-ext-diff")
    changed = _names(_git(project_dir, "diff", "--name-only", "-z", *options, base))
    paths = [p for p in changed if _deliverable(p)]
    chunks: list[tuple[str, str]] = []
    if paths:
        specs = [f":(top,literal){p}" for p in paths]
        text = _git(project_dir, "diff", *options, base, "--", *specs).decode(errors="replace")
        chunks += _split_diff(text)
    untracked = _git(project_dir, "ls-files", "-z", "--others", "--exclude-standard")
    for path in sorted(p for p in _names(untracked) if _deliverable(p)):
        file = _read(project_dir / path, path)
        if file is not None and file.content is not None:
            done = _run(project_dir, "diff", "--no-index", *options, "--", "/dev/null", path)
            chunks.append((path, done.stdout.decode(errors="replace")))
    return [(name, text) for name, text in chunks if text]


def _split_diff(text: str) -> list[tuple[str, str]]:
    """One chunk per `diff --git a/X b/X` header, named X (the header itself when quoted)."""
    chunks: list[tuple[str, str]] = []
    for part in re.split(r"(?m)^(?=diff --git )", text):
        if not part.strip():
            continue
        header = part.split("\n", 1)[0]
        rest = header.removeprefix("diff --git a/")
        name = rest[: (len(rest) - 3) // 2] if rest != header else header
        chunks.append((name, part))
    return chunks


def _git(project_dir: Path, *args: str) -> bytes:
    done = _run(project_dir, *args)
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip()
        raise ThoughtForgeError(f"git {args[0]} failed in {project_dir}: {why}")
    return done.stdout


def _run(project_dir: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["git", *SAFE_OPTIONS, "-c", "core.quotepath=off", *args],
        cwd=project_dir,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )


# --- fitting ------------------------------------------------------------------------------------


@dataclass
class _Fit:
    """Parts fitted to a budget: `texts[i]` None for a part left out; `cut` names the parts cut
    to `cap` tokens, with their full size."""

    texts: list[str | None]
    cut: list[tuple[str, int]] = field(default_factory=list)
    cap: int = 0
    left_out: list[str] = field(default_factory=list)


def _fit_largest_first(
    parts: list[tuple[str, str]],
    budget: int,
    render: Callable[[list[str | None]], str],
    note: Callable[[_Fit], str],
) -> _Fit:
    """Cut the largest parts first until `render(texts) + note(fit)` fits `budget`.

    Every part above a common cap is cut to it (keeping its start), the cap as high as the budget
    allows: the largest part is cut down to the next largest, then both, and so on. A cap under
    `MIN_PART_TOKENS` would show nothing useful, so then the last parts are left out instead
    (the most parts that still get that much), and the note names them.
    """
    fit = _fit_shown(parts, len(parts), budget, render, note)
    if not fit.cut or fit.cap >= MIN_PART_TOKENS or len(parts) <= 1:
        return fit
    low, high = 1, len(parts) - 1  # the most parts shown with a useful cap, by bisection
    best = _fit_shown(parts, 1, budget, render, note)
    while low <= high:
        middle = (low + high) // 2
        attempt = _fit_shown(parts, middle, budget, render, note)
        if not attempt.cut or attempt.cap >= MIN_PART_TOKENS:
            best, low = attempt, middle + 1
        else:
            high = middle - 1
    return best


def _fit_shown(
    parts: list[tuple[str, str]],
    shown: int,
    budget: int,
    render: Callable[[list[str | None]], str],
    note: Callable[[_Fit], str],
) -> _Fit:
    """The first `shown` parts, cut to fit; the room for the note depends on what is cut, so the
    fit is redone until that is stable."""
    texts = [text for _, text in parts[:shown]]
    sizes = [estimate_tokens(text) for text in texts]
    hidden: list[str | None] = [None] * (len(parts) - shown)
    left_out = [name for name, _ in parts[shown:]]
    frame = estimate_tokens(render([*([""] * shown), *hidden]))
    fit = _Fit(texts=[*texts, *hidden], left_out=left_out)
    for _ in range(4):
        room = budget - frame - estimate_tokens(note(fit))
        if sum(sizes) <= room:
            return _Fit(texts=[*texts, *hidden], left_out=left_out)
        cap = _water_level(sizes, max(room, 0))
        over = [i for i, size in enumerate(sizes) if size > cap]
        cut_texts = [_cut(t, cap) if i in over else t for i, t in enumerate(texts)]
        previous = [name for name, _ in fit.cut]
        fit = _Fit(
            texts=[*cut_texts, *hidden],
            cut=[(parts[i][0], sizes[i]) for i in over],
            cap=cap,
            left_out=left_out,
        )
        if [name for name, _ in fit.cut] == previous:
            break
    return fit


def _cut(text: str, cap: int) -> str:
    """`truncate_text` backed up to the end of a whole line: half a line of code misleads."""
    kept = truncate_text(text, cap).text.removesuffix(TRUNCATION_MARK)
    end = kept.rfind("\n")
    return (kept[:end] if end >= 0 else "") + TRUNCATION_MARK


def _water_level(sizes: list[int], room: int) -> int:
    """The highest cap with sum(min(size, cap)) <= room (sizes do not all fit)."""
    remaining = room
    ordered = sorted(sizes)
    for i, size in enumerate(ordered):
        left = len(ordered) - i
        if size * left > remaining:
            return remaining // left
        remaining -= size
    return ordered[-1] if ordered else 0


def _fit_note(fit: _Fit, what: str) -> str:
    """What was cut and what was left out, in a sentence each."""
    note = ""
    if fit.cut:
        each = ", ".join(f"{name} ({whole:,} tokens in full)" for name, whole in fit.cut)
        note += (
            f"Cut to fit the budget, largest first, to about {fit.cap:,} tokens each, keeping "
            f"the start of {what}: {each}.\n"
        )
    if fit.left_out:
        named = ", ".join(fit.left_out[:NAMED_LEFT_OUT])
        more = len(fit.left_out) - NAMED_LEFT_OUT
        named += f" and {more} more" if more > 0 else ""
        note += f"Left out for lack of room, {_plural(len(fit.left_out), 'file')}: {named}.\n"
    return note


# --- rendering ----------------------------------------------------------------------------------


def _block(path: str, text: str, lines: int, fence: str | None = None) -> str:
    """One file as a fenced block under its path; the fence outruns any backtick run inside."""
    fence = fence or _fence(text)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"### {path} ({_plural(lines, 'line')})\n{fence}\n{body}{fence}\n\n"


def _fence(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _line_count(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" if count == 1 else f"{count:,} {word}s"
