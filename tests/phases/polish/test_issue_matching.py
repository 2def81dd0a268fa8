"""Stagnation's issue matching agrees with a brute-force reference on random reviews.

The guard measures as few pairs as it can and stops once the 70 % rule is decided; the reference
measures every pair: rapidfuzz's normalized Levenshtein similarity of the descriptions at least
0.8 (as the design words the rule), or the same words in another order (`issue_wording`).
"""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime

import pytest
from rapidfuzz.distance import Levenshtein

from thoughtforge.config import PolishConfig
from thoughtforge.core import TrajectoryEntry
from thoughtforge.models import Issue, Severity
from thoughtforge.phases.polish.guards import GuardReport, GuardResult, evaluate
from thoughtforge.phases.polish.issue_wording import same_words, words

# Few letters, so that random texts often land either side of 0.8 from each other.
ALPHABET = "ab c"
# Letters in both cases and characters past ASCII, which the character bound folds into shared
# buckets: folding must only ever let more pairs through to be measured.
WIDE_ALPHABET = "aAb é✓c\t"
SHARE = re.compile(r"\((at least |at most |)(\d+) of (\d+) matched, ([^)]*)\)")


def reference_matched(current: list[str], previous: list[str]) -> int:
    return sum(
        any(
            Levenshtein.normalized_similarity(text, other) >= 0.8
            or same_words(words(text), words(other))
            for other in previous
        )
        for text in current
    )


def stagnation_detail(current: list[str], previous: list[str]) -> tuple[str, str]:
    """The verdict and the stagnation guard's detail, on a plateau no earlier guard stops."""
    plateau = [
        TrajectoryEntry(
            iteration=n,
            critical=9,
            medium=0,
            minor=0,
            total=9,
            fix_applied=True,
            timestamp=datetime(2024, 5, 1, tzinfo=UTC),
        )
        for n in (1, 2, 3)
    ]
    report = evaluate(plateau, issues(current), issues(previous), PolishConfig())
    assert named(report, "stagnation").name == "stagnation"
    return report.verdict, named(report, "stagnation").detail


def named(report: GuardReport, name: str) -> GuardResult:
    """The finding of the guard called `name` ."""
    return next(result for result in report.results if result.name == name)


def issues(descriptions: list[str]) -> list[Issue]:
    return [Issue(severity=Severity.CRITICAL, description=d) for d in descriptions]


def random_text(rng: random.Random, alphabet: str = ALPHABET) -> str:
    """Mostly short texts, some past 64 characters, where rapidfuzz switches algorithm."""
    length = rng.choice([rng.randint(1, 20), rng.randint(20, 45), rng.randint(60, 140)])
    return "".join(rng.choices(alphabet, k=length))


def reworded(text: str, rng: random.Random, alphabet: str = ALPHABET) -> str:
    """`text` with random insertions, deletions and substitutions, up to a third of its length,
    anywhere in it."""
    chars = list(text)
    for _ in range(rng.randint(0, len(text) // 3 + 1)):
        at = rng.randrange(len(chars) + 1)
        edit = rng.choice("ids") if at < len(chars) else "i"
        if edit == "i":
            chars.insert(at, rng.choice(alphabet))
        elif edit == "d" and len(chars) > 1:
            del chars[at]
        else:
            chars[at] = rng.choice(alphabet)
    return "".join(chars)


def review_pair(rng: random.Random, alphabet: str = ALPHABET) -> tuple[list[str], list[str]]:
    """A previous review and a current one that repeats, rewords or replaces its issues."""
    previous = [random_text(rng, alphabet) for _ in range(rng.randint(0, 40))]
    previous += rng.sample(previous, k=len(previous) // 5)
    current = []
    for _ in range(rng.randint(0, 40)):
        kind = rng.random()
        if previous and kind < 0.2:
            current.append(rng.choice(previous))
        elif previous and kind < 0.8:
            current.append(reworded(rng.choice(previous), rng, alphabet))
        else:
            current.append(random_text(rng, alphabet))
    return current, previous


@pytest.mark.parametrize("seed", range(20))
def test_each_issue_matches_exactly_when_the_reference_finds_a_similar_one(seed: int) -> None:
    rng = random.Random(seed)
    current, previous = review_pair(rng)
    for text in current:
        matched = reference_matched([text], previous)
        verdict, detail = stagnation_detail([text], previous)
        assert verdict == ("continue" if matched else "done"), (text, previous)
        assert f"({matched} of 1 matched" in detail


@pytest.mark.parametrize("seed", range(20))
def test_folding_cases_and_wide_characters_never_hides_a_similar_issue(seed: int) -> None:
    rng = random.Random(seed)
    current, previous = review_pair(rng, WIDE_ALPHABET)
    for text in current:
        matched = reference_matched([text], previous)
        verdict, detail = stagnation_detail([text], previous)
        assert verdict == ("continue" if matched else "done"), (text, previous)
        assert f"({matched} of 1 matched" in detail


@pytest.mark.parametrize("seed", range(200))
def test_the_verdict_is_the_reference_one_and_the_share_it_quotes_is_true(seed: int) -> None:
    rng = random.Random(seed)
    current, previous = review_pair(rng)
    matched, total = reference_matched(current, previous), len(current)
    persist = matched * 10 >= total * 7

    verdict, detail = stagnation_detail(current, previous)

    assert verdict == ("continue" if persist else "done")
    share = SHARE.search(detail)
    assert share is not None, detail
    bound, quoted, of, percent = share.groups()
    assert int(of) == total
    if bound == "at least ":
        assert percent == "70 % or more"
        assert total * 7 <= int(quoted) * 10 <= matched * 10
    elif bound == "at most ":
        assert percent == "under 70 %"
        assert matched * 10 <= int(quoted) * 10 < total * 7
    else:
        assert int(quoted) == matched
        assert percent == f"{round(100 * matched / total) if total else 100} %"


VOCABULARY = [
    "budget",
    "contingency",
    "venue",
    "guest",
    "owner",
    "deadline",
    "schedule",
    "rollback",
    "migration",
    "cache",
    "retry",
    "token",
    "log",
    "timeout",
    "upload",
    "export",
    "missing",
    "unclear",
    "vague",
    "cost",
    "expense",
    "responsible",
    "timeline",
    "the",
    "is",
    "not",
    "no",
    "for",
    "of",
    "in",
    "has",
]


def reworded_in_words(text: str, rng: random.Random) -> str:
    """The same words shuffled, a few dropped or added: a finding reworded by a reviewer."""
    found = text.split()
    rng.shuffle(found)
    for _ in range(rng.randint(0, 2)):
        if found and rng.random() < 0.5:
            found.pop(rng.randrange(len(found)))
        else:
            found.insert(rng.randrange(len(found) + 1), rng.choice(VOCABULARY))
    return " ".join(found) or "budget"


@pytest.mark.parametrize("seed", range(60))
def test_findings_reworded_in_words_match_as_the_pairwise_reference_says(seed: int) -> None:
    """Exercises the word index (bit-plane counting) against the pair-by-pair reference."""
    rng = random.Random(seed)
    previous = [" ".join(rng.choices(VOCABULARY, k=rng.randint(2, 12))) for _ in range(30)]
    current = [
        reworded_in_words(rng.choice(previous), rng)
        if rng.random() < 0.6
        else " ".join(rng.choices(VOCABULARY, k=rng.randint(2, 12)))
        for _ in range(rng.randint(1, 30))
    ]
    for text in current:
        matched = reference_matched([text], previous)
        verdict, _ = stagnation_detail([text], previous)
        assert verdict == ("continue" if matched else "done"), (text, previous)
    matched, total = reference_matched(current, previous), len(current)
    verdict, _ = stagnation_detail(current, previous)
    assert verdict == ("continue" if matched * 10 >= total * 7 else "done")


def test_the_same_finding_reworded_persists_and_different_findings_rotate() -> None:
    """Before, none of these rewordings matched (Levenshtein similarity well under 0.8)."""
    previous = [
        "The budget has no contingency line for unexpected costs.",
        "Milestones have no owners or due dates.",
        "The rollout plan has no rollback step if the migration fails.",
    ]
    reworded = [
        "No contingency reserve is included in the budget to cover unforeseen expenses.",
        "Each milestone is missing an owner and a deadline.",
        "If the migration fails there is no way back: the rollout lacks a rollback procedure.",
    ]
    others = [
        "The budget total exceeds the 15k limit stated in the constraints.",
        "Milestones are not linked to the goals.",
        "The rollout plan does not say which regions go first.",
    ]
    assert stagnation_detail(reworded, previous)[0] == "continue"
    assert stagnation_detail(others, previous)[0] == "done"


@pytest.mark.parametrize(
    ("text", "other"),
    [
        ("e" * 300, "e" * 290 + "x" * 10),  # counts past the ceiling of 255
        ("E" * 90 + "✓" * 10, "e" * 90 + "✓" * 10),  # cases and a wide character share buckets
    ],
)
def test_long_runs_and_folded_characters_are_still_measured(text: str, other: str) -> None:
    """Unlike descriptions sit next to `text` in alphabetical order, forwards and backwards, so
    the cheap first pass misses `other` and the character bound decides whether it is measured."""
    previous = [other, text[:5] + "a" * 200, text[:-3] + "f" * 100]
    matched = reference_matched([text], previous)
    verdict, detail = stagnation_detail([text], previous)
    assert verdict == ("continue" if matched else "done")
    assert f"({matched} of 1 matched" in detail
