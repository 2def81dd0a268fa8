"""Fitting parts (files, per-file diffs) to a token budget: the largest cut first, then the last
ones left out, and a note of what was cut or left out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from thoughtforge.plurals import plural
from thoughtforge.prompting import estimate_tokens, truncate_text
from thoughtforge.prompting.context_window import TRUNCATION_MARK

MIN_PART_TOKENS = 64
"""A file (or a file's diff) cut shorter than this is left out instead, and named."""
NAMED_LEFT_OUT = 20
"""At most this many left-out files are named; the rest are counted."""


@dataclass
class Fit:
    """Parts fitted to a budget: `texts[i]` None for a part left out; `cut` names the parts cut
    to `cap` tokens, with their full size."""

    texts: list[str | None]
    cut: list[tuple[str, int]] = field(default_factory=list)
    cap: int = 0
    left_out: list[str] = field(default_factory=list)


def fit_largest_first(
    parts: list[tuple[str, str]],
    budget: int,
    render: Callable[[list[str | None]], str],
    note: Callable[[Fit], str],
) -> Fit:
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
    note: Callable[[Fit], str],
) -> Fit:
    """The first `shown` parts, cut to fit; the room for the note depends on what is cut, so the
    fit is redone until that is stable."""
    texts = [text for _, text in parts[:shown]]
    sizes = [estimate_tokens(text) for text in texts]
    hidden: list[str | None] = [None] * (len(parts) - shown)
    left_out = [name for name, _ in parts[shown:]]
    frame = estimate_tokens(render([*([""] * shown), *hidden]))
    fit = Fit(texts=[*texts, *hidden], left_out=left_out)
    for _ in range(4):
        room = budget - frame - estimate_tokens(note(fit))
        if sum(sizes) <= room:
            return Fit(texts=[*texts, *hidden], left_out=left_out)
        cap = _water_level(sizes, max(room, 0))
        over = [i for i, size in enumerate(sizes) if size > cap]
        cut_texts = [_cut(t, cap) if i in over else t for i, t in enumerate(texts)]
        previous = [name for name, _ in fit.cut]
        fit = Fit(
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


def fit_note(fit: Fit, what: str) -> str:
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
        note += f"Left out for lack of room, {plural(len(fit.left_out), 'file')}: {named}.\n"
    return note
