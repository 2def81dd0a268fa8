"""How well the tracker recognises the same finding in new words, and what an iteration costs.

Run: .venv/bin/python bench/bench_paraphrase.py

Precision and recall of `issue_matching.match_findings` (the tracker's identity of a finding) on
five labelled sets: the tuning pairs of `paraphrase_pairs.py`, the earlier held-out pairs of that
file, and three sets written apart (plans-and-code, events-and-hiring, held-out) (their findings carry locations, which must agree). The
last two were written by two writers who had read neither the matcher nor any other set; the
first two's misses have been looked at since, the held-out set's never. For comparison, the design's
matcher alone: normalized Levenshtein ≥ 0.8 on the descriptions ("levenshtein").

Then the cost of an iteration's bookkeeping (the tracker taking in 1,000 issues against the
findings, the guards reading it, the fix taken in) over a loop of rounds, as CPU time (the
machine is shared: wall time would measure the neighbours), each round the least of 5 runs; the
worst round is reported, not the mean. Carried-over issues are the previous review's reworded
(a word dropped or added); near misses are worded like them with one word swapped, which the
tracker takes as new findings.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

from rapidfuzz.distance import Levenshtein

sys.path.insert(0, str(Path(__file__).parent))

import paraphrase_pairs
import paraphrase_pairs_events_hiring
import paraphrase_pairs_held_out
import paraphrase_pairs_plans_code
from bench_guards import edited, entry, loop_reviews, near_miss, one_round

from thoughtforge.config import PolishConfig
from thoughtforge.models import Issue, Severity
from thoughtforge.phases.polish.finding_tracker import FindingTracker, after_review
from thoughtforge.phases.polish.guards import evaluate
from thoughtforge.phases.polish.issue_matching import match_findings

Finding = tuple[str, str]
Matcher = Callable[[Finding, Finding], bool]
ROUNDS = 8


def levenshtein(first: Finding, second: Finding) -> bool:
    return Levenshtein.normalized_similarity(first[0], second[0]) >= 0.8


def tracker(first: Finding, second: Finding) -> bool:
    def issue(finding: Finding) -> Issue:
        return Issue(severity=Severity.MEDIUM, description=finding[0], location=finding[1])

    return match_findings([issue(first)], [issue(second)]) == [0]


def scores(matcher: Matcher, same: list[tuple[Finding, Finding]], different: list) -> str:  # type: ignore[type-arg]
    found = sum(matcher(a, b) for a, b in same)
    wrong = sum(matcher(a, b) for a, b in different)
    precision = found / (found + wrong) if found + wrong else 1.0
    recall = found / len(same)
    return (
        f"recall {recall:.2f} ({found} of {len(same)} rewordings), "
        f"precision {precision:.2f} ({wrong} wrong match(es))"
    )


def unlocated(pairs: list[tuple[str, str]]) -> list[tuple[Finding, Finding]]:
    return [((a, ""), (b, "")) for a, b in pairs]


def worst_round_ms(
    carried_over: float, reworded: Callable[[str, random.Random], str] = edited
) -> tuple[float, list[float], float]:
    """The worst round of the whole bookkeeping, every round's, and the worst of the guards'
    evaluation alone (the tracker already holding the review)."""
    reviews = loop_reviews(carried_over, ROUNDS, reworded)
    config = PolishConfig(max_iterations=ROUNDS + 1, stagnation_limit=ROUNDS)
    known, trajectory, rounds, guards = FindingTracker(), [], [], []
    for n, review in enumerate(reviews, start=1):
        trajectory.append(entry(n))
        best = alone = float("inf")
        for _ in range(5):
            start = time.process_time()
            after, _ = one_round(known, trajectory, review, config)
            best = min(best, time.process_time() - start)
        reviewed = after_review(known, n, review, [])
        for _ in range(5):
            start = time.process_time()
            evaluate(trajectory, reviewed, config)
            alone = min(alone, time.process_time() - start)
        known = after
        rounds.append(best * 1000)
        guards.append(alone * 1000)
    return max(rounds), rounds, max(guards)


def main() -> None:
    sets = [
        (
            "tuning pairs (paraphrase_pairs.SAME/DIFFERENT; tuned on)",
            unlocated(paraphrase_pairs.SAME),
            unlocated(paraphrase_pairs.DIFFERENT),
        ),
        (
            "earlier held-out pairs (paraphrase_pairs.HELD_OUT_*)",
            unlocated(paraphrase_pairs.HELD_OUT_SAME),
            unlocated(paraphrase_pairs.HELD_OUT_DIFFERENT),
        ),
        (
            "plans-and-code pairs (paraphrase_pairs_plans_code; its misses looked at)",
            paraphrase_pairs_plans_code.SAME,
            paraphrase_pairs_plans_code.DIFFERENT,
        ),
        (
            "events-and-hiring pairs (paraphrase_pairs_events_hiring; written blind, its misses looked at)",
            paraphrase_pairs_events_hiring.SAME,
            paraphrase_pairs_events_hiring.DIFFERENT,
        ),
        (
            "held-out pairs (paraphrase_pairs_held_out; written blind, never looked at)",
            paraphrase_pairs_held_out.SAME,
            paraphrase_pairs_held_out.DIFFERENT,
        ),
    ]
    for name, same, different in sets:
        print(f"{name}: {len(same)} same, {len(different)} different")
        print(f"  levenshtein: {scores(levenshtein, same, different)}")
        print(f"  tracker:      {scores(tracker, same, different)}")
    print(f"An iteration's bookkeeping, 1,000 issues a review, {ROUNDS} rounds (CPU ms):")
    for carried_over, reworded, kind in (
        (0.0, edited, "carried over"),
        (0.5, edited, "carried over"),
        (0.9, edited, "carried over"),
        (0.9, near_miss, "near misses of known findings"),
    ):
        worst, rounds, guards = worst_round_ms(carried_over, reworded)
        each = ", ".join(f"{ms:.0f}" for ms in rounds)
        print(
            f"  {carried_over:.0%} {kind}: worst round {worst:.1f} ms (rounds: {each}); "
            f"the guards alone, worst round {guards:.2f} ms"
        )


if __name__ == "__main__":
    main()
