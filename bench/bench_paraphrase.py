"""How well stagnation's matcher recognises the same issue in new words, and what it costs.

Run: .venv/bin/python bench/bench_paraphrase.py

Precision and recall on the labelled pairs of `paraphrase_pairs.py` (the tuning pairs, then the
held-out ones written after tuning), for DESIGN.md's matcher (normalized Levenshtein ≥ 0.8 on the
descriptions: "old") and for it or-ed with the word matcher of `issue_wording` ("new"). Then the
guards' cost when 1,000 current issues meet 1,000 previous ones (bench_guards.py's reviews), as
CPU time (the machine is shared: wall time would measure the neighbours), the least of 7 runs:
cold (every word and description new to the process) and as in a running loop (the previous
review's descriptions were read an iteration ago).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from unittest import mock

from rapidfuzz.distance import Levenshtein

sys.path.insert(0, str(Path(__file__).parent))

from bench_guards import plateau, reviews
from paraphrase_pairs import DIFFERENT, HELD_OUT_DIFFERENT, HELD_OUT_SAME, SAME

from thoughtforge.config import PolishConfig
from thoughtforge.phases.polish import issue_matching
from thoughtforge.phases.polish.guards import evaluate
from thoughtforge.phases.polish.issue_wording import _CANONICAL_OF, _words, same_words, words

Matcher = Callable[[str, str], bool]


def old(first: str, second: str) -> bool:
    return Levenshtein.normalized_similarity(first, second) >= 0.8


def new(first: str, second: str) -> bool:
    return old(first, second) or same_words(words(first), words(second))


def scores(matcher: Matcher, same: list[tuple[str, str]], different: list[tuple[str, str]]) -> str:
    found = sum(matcher(a, b) for a, b in same)
    wrong = sum(matcher(a, b) for a, b in different)
    precision = found / (found + wrong) if found + wrong else 1.0
    recall = found / len(same)
    return (
        f"precision {precision:.2f} ({found} of {found + wrong} matches right), "
        f"recall {recall:.2f} ({found} of {len(same)} rewordings)"
    )


def guards_cpu_ms(carried_over: float, with_words: bool, warm: bool = False) -> float:
    now, before = reviews(carried_over)
    trajectory, config = plateau(), PolishConfig()
    old_only = mock.patch.object(issue_matching._Previous, "same_words", lambda self, text: False)
    best = float("inf")
    for _ in range(7):
        _CANONICAL_OF.clear()
        _words.cache_clear()
        if warm:
            for issue in before:
                words(issue.description)
        with nullcontext() if with_words else old_only:
            start = time.process_time()
            evaluate(trajectory, now, before, config)
            best = min(best, time.process_time() - start)
    return best * 1000


def main() -> None:
    print(f"Labelled pairs: {len(SAME)} same issue reworded, {len(DIFFERENT)} different issues")
    print(f"  old: {scores(old, SAME, DIFFERENT)}")
    print(f"  new: {scores(new, SAME, DIFFERENT)}")
    print(
        f"Held-out pairs (never tuned on): {len(HELD_OUT_SAME)} same, "
        f"{len(HELD_OUT_DIFFERENT)} different"
    )
    print(f"  old: {scores(old, HELD_OUT_SAME, HELD_OUT_DIFFERENT)}")
    print(f"  new: {scores(new, HELD_OUT_SAME, HELD_OUT_DIFFERENT)}")
    print("Guards on 1,000 × 1,000 issues (CPU ms, least of 7):")
    for carried_over in (0.0, 0.5, 0.9):
        before = guards_cpu_ms(carried_over, with_words=False)
        cold = guards_cpu_ms(carried_over, with_words=True)
        warm = guards_cpu_ms(carried_over, with_words=True, warm=True)
        print(
            f"  {carried_over:.0%} carried over: old {before:.1f} ms, new {cold:.1f} ms cold, "
            f"{warm:.1f} ms in a running loop"
        )


if __name__ == "__main__":
    main()
