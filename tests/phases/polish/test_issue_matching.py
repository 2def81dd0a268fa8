"""The tracker's finding matcher agrees with a brute-force reference on random reviews.

The matcher measures as few pairs as it can; the reference measures every pair: rapidfuzz's
normalized Levenshtein similarity of the descriptions at least 0.8 (as the design words the rule),
or the same words in another order (`issue_wording`), unless they say different kinds of problem
or, alike in characters, name different things. Each known finding is matched once at most.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Sequence

import numpy as np
import pytest
from rapidfuzz.distance import Levenshtein

from thoughtforge.models import Issue, Severity
from thoughtforge.phases.polish.distance_bounds import (
    BigramCounts,
    KeptRows,
    bigram_counts,
    character_counts,
)
from thoughtforge.phases.polish.finding_tracker import FindingTracker, after_fix, after_review
from thoughtforge.phases.polish.issue_matching import _WordIndex, match_findings
from thoughtforge.phases.polish.issue_wording import near_miss, same_kind, same_words, words
from thoughtforge.phases.polish.places import same_place

# Few letters, so that random texts often land either side of 0.8 from each other.
ALPHABET = "ab c"
# Letters in both cases and characters past ASCII, which the character bound folds into shared
# buckets: folding must only ever let more pairs through to be measured.
WIDE_ALPHABET = "aAb é✓c\t"


def similar(text: str, other: str) -> bool:
    alike = Levenshtein.normalized_similarity(text, other) >= 0.8
    if not same_kind(text, other) or near_miss(text, other):
        return False
    return alike or same_words(words(text), words(other))


def matched_as_the_reference_says(current: list[str], previous: list[str]) -> int:
    """Check `match_findings` against the reference; the number matched."""
    found = match_findings(issues(current), issues(previous))
    taken = [n for n in found if n is not None]
    assert len(taken) == len(set(taken)), "a known finding is matched once at most"
    for text, n in zip(current, found, strict=True):
        if n is not None:
            assert similar(text, previous[n]), (text, previous[n])
        else:
            free = [
                k for k, other in enumerate(previous) if k not in taken and similar(text, other)
            ]
            assert not free, (text, [previous[k] for k in free])
    return len(taken)


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
        matched = matched_as_the_reference_says([text], previous)
        assert matched == any(similar(text, other) for other in previous)


@pytest.mark.parametrize("seed", range(20))
def test_folding_cases_and_wide_characters_never_hides_a_similar_issue(seed: int) -> None:
    rng = random.Random(seed)
    current, previous = review_pair(rng, WIDE_ALPHABET)
    for text in current:
        matched = matched_as_the_reference_says([text], previous)
        assert matched == any(similar(text, other) for other in previous)


@pytest.mark.parametrize("seed", range(200))
def test_a_whole_review_is_matched_one_to_one_and_as_fully_as_the_reference_allows(
    seed: int,
) -> None:
    rng = random.Random(seed)
    current, previous = review_pair(rng)
    matched_as_the_reference_says(current, previous)


def test_a_finding_about_another_place_is_another_finding() -> None:
    text = "The budget has no contingency line for unexpected costs."
    here = [Issue(severity=Severity.MEDIUM, description=text, location="Resources & Budget")]
    there = [Issue(severity=Severity.MEDIUM, description=text, location="Timeline")]
    anywhere = [Issue(severity=Severity.MEDIUM, description=text)]
    assert match_findings(here, there) == [None]
    assert match_findings(here, here) == [0]
    assert match_findings(here, anywhere) == [0], "an unknown place agrees with any"


def test_a_finding_of_another_kind_is_another_finding_however_alike_the_words() -> None:
    missing = "Section 3 budget table: the contingency line is missing."
    unclear = "Section 3 budget table: the contingency line is unclear."
    reworded = "Section 3 budget table: the contingency line is absent."
    assert Levenshtein.normalized_similarity(missing, unclear) >= 0.8
    assert match_findings(issues([unclear]), issues([missing])) == [None]
    assert match_findings(issues([reworded]), issues([missing])) == [0]
    unsaid = "Section 3 budget table: the contingency line is not there."
    assert match_findings(issues([unsaid]), issues([missing])) == [0], "naming no kind, any kind"


@pytest.mark.parametrize(
    ("known", "near"),
    [
        ("The vendor deposit is not in the schedule.", "The vendor deposit is not in the budget."),
        ("Milestones in the timeline lack dates.", "Milestones in the timeline lack owners."),
        ("The importer swallows the timeout error.", "The importer swallows the parse error."),
    ],
)
def test_a_finding_worded_alike_about_another_thing_is_another_finding(
    known: str, near: str
) -> None:
    """The design's character rule alone takes these for one finding; each names a thing the
    other does not, so a careful reader would not."""
    assert Levenshtein.normalized_similarity(known, near) >= 0.8
    assert match_findings(issues([near]), issues([known])) == [None]


@pytest.mark.parametrize(
    ("known", "near"),
    [
        (
            "The onboarding checklist has no step for laptop setup.",
            "The onboarding checklist has no step for payroll enrolment.",
        ),
        (
            "No job description is written for the data analyst role.",
            "No job description is written for the product designer role.",
        ),
    ],
)
def test_a_word_swapped_in_the_same_sentence_is_another_finding_below_the_design_rule_too(
    known: str, near: str
) -> None:
    """Enough words shared to be one finding, and below the design's 0.8 in characters: the
    same sentence with one thing swapped for another is still two findings."""
    assert same_words(words(known), words(near))
    assert 0.6 <= Levenshtein.normalized_similarity(known, near) < 0.8
    assert match_findings(issues([near]), issues([known])) == [None]


@pytest.mark.parametrize(
    ("known", "near"),
    [
        (
            "The export error is not shown to the user.",
            "The export error is shown to the user as a raw stack trace.",
        ),
        (
            "The retry delay isn't configurable.",
            "The retry delay is configurable but defaults to zero.",
        ),
    ],
)
def test_a_thing_missing_and_the_same_thing_there_but_wrong_are_two_findings(
    known: str, near: str
) -> None:
    """Fixing the first (showing the error, making the delay configurable) is what the second
    complains about: the words agree, what they say of them does not."""
    assert same_words(words(known), words(near))
    assert match_findings(issues([near]), issues([known])) == [None]


def test_a_rewording_that_keeps_the_absence_in_other_words_is_still_the_same_finding() -> None:
    known = "Vendor deposits are not in the budget."
    assert match_findings(
        issues(["The budget leaves out the vendor deposits."]), issues([known])
    ) == [0]
    again = "The vendor deposits are still not in the budget."
    assert match_findings(issues([again]), issues([known])) == [0]


@pytest.mark.parametrize(
    ("known", "again"),
    [
        ("The vendor deposit is not in the schedule.", "The vendor deposit is not in the shedule."),
        (
            "The vendor deposit is not in the schedule.",
            "The vendor deposit is still not scheduled.",
        ),
        ("The budget total of 12k exceeds the cap.", "The budget total of 14k exceeds the cap."),
        ("Guest list lacks dietary needs.", "The guest list still lacks dietary needs."),
    ],
)
def test_a_slip_a_dropped_word_or_a_changed_count_is_still_the_same_finding(
    known: str, again: str
) -> None:
    assert match_findings(issues([again]), issues([known])) == [0]


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
        matched = matched_as_the_reference_says([text], previous)
        assert matched == any(similar(text, other) for other in previous)
    matched_as_the_reference_says(current, previous)


def test_the_same_finding_reworded_is_matched_and_different_findings_are_not() -> None:
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
    assert match_findings(issues(reworded), issues(previous)) == [0, 1, 2]
    assert match_findings(issues(others), issues(previous)) == [None, None, None]


@pytest.mark.parametrize(
    ("text", "other"),
    [
        ("e" * 300, "e" * 290 + "x" * 10),  # counts past the ceiling of 127
        ("E" * 90 + "✓" * 10, "e" * 90 + "✓" * 10),  # cases and a wide character share buckets
    ],
)
def test_long_runs_and_folded_characters_are_still_measured(text: str, other: str) -> None:
    """Unlike descriptions sit next to `text` in alphabetical order, forwards and backwards, so
    the cheap first pass misses `other` and the character bound decides whether it is measured."""
    previous = [other, text[:5] + "a" * 200, text[:-3] + "f" * 100]
    matched = matched_as_the_reference_says([text], previous)
    assert matched == any(similar(text, o) for o in previous)


def test_counts_kept_across_calls_are_the_counts_of_those_texts() -> None:
    """The rows kept from earlier calls, repeated texts and a drop past the limit included, are
    what counting the texts afresh gives."""
    kept = KeptRows(character_counts)
    kept.LIMIT = 5
    rng = random.Random(7)
    pool = [random_text(rng, WIDE_ALPHABET) for _ in range(12)]
    for _ in range(20):
        texts = rng.choices(pool, k=rng.randint(0, 8))
        assert np.array_equal(kept.of(texts), character_counts(texts))
        assert len(kept.kept) <= kept.LIMIT + 8


def straightforward_match(current: list[Issue], known: Sequence[Issue]) -> list[int | None]:
    """`match_findings` without its shortcuts: the same stages in the same order, every pair
    measured. The exact text first; then the alphabetical neighbours (forwards, then reversed)
    that are similar; then, shortest issue first, every similar description, then every one with
    the same words, in order of length."""
    if not current or not known:
        return [None] * len(current)
    indices: dict[str, list[int]] = {}
    for n, finding in enumerate(known):
        indices.setdefault(finding.description, []).append(n)
    by_length = sorted(indices, key=lambda text: (len(text), text))
    forwards, backwards = sorted(by_length), sorted(text[::-1] for text in by_length)
    texts = [issue.description for issue in current]
    taken: set[int] = set()
    found: list[int | None] = [None] * len(current)

    def take(at: int, candidates: list[str]) -> bool:
        """The first candidate finding not taken, at the issue's place, of its kind, not a near
        miss."""
        free = [
            n
            for text in candidates
            if not near_miss(texts[at], text)
            for n in indices.get(text, ())
            if n not in taken and same_place(current[at].location, known[n].location)
        ]
        first = next((n for n in free if same_kind(texts[at], known[n].description)), None)
        if first is not None:
            taken.add(first)
            found[at] = first
        return first is not None

    def close(text: str, other: str) -> bool:
        return 5 * Levenshtein.distance(text, other) <= max(len(text), len(other))

    def neighbours(text: str) -> list[str]:
        near = []
        for alphabetical, key, flip in ((forwards, text, False), (backwards, text[::-1], True)):
            at = bisect.bisect_left(alphabetical, key)
            for before in (1, 0):
                other = alphabetical[min(max(at - before, 0), len(alphabetical) - 1)]
                if close(key, other):
                    near.append(other[::-1] if flip else other)
        return near

    rest = [at for at in range(len(current)) if not take(at, [texts[at]])]
    rest = [at for at in rest if not take(at, neighbours(texts[at]))]
    for at in sorted(rest, key=lambda at: len(texts[at])):
        if not take(at, [text for text in by_length if close(texts[at], text)]):
            mine = words(texts[at])
            take(at, [text for text in by_length if same_words(mine, words(text))])
    return found


@pytest.mark.parametrize("seed", range(40))
def test_the_matcher_picks_the_very_findings_the_straightforward_matcher_picks(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = WIDE_ALPHABET if seed % 2 else ALPHABET
    current, previous = review_pair(rng, alphabet)
    assert match_findings(issues(current), issues(previous)) == straightforward_match(
        issues(current), issues(previous)
    )


FILES = ["api/routes.py", "core/cache.py", "docs/plan.md", "Budget", "Timeline", ""]


def finding_text(rng: random.Random) -> str:
    """A reviewer's sentence, mostly words any finding might use, sometimes after a place."""
    text = " ".join(rng.choices(VOCABULARY, k=rng.randint(3, 16)))
    return f"{rng.choice(FILES)}:{rng.randint(1, 99)} {text}" if rng.random() < 0.5 else text


def slightly_edited(text: str, rng: random.Random) -> str:
    cut = rng.randint(len(text) // 2, max(len(text) // 2, len(text) - 5))
    return text[:cut] + rng.choice(["", " again", " still"]) + text[cut + 3 :]


@pytest.mark.parametrize(("carried_over", "batch"), [(0.0, 256), (0.5, 256), (0.9, 256), (0.0, 7)])
def test_a_loop_of_reviews_matches_as_the_straightforward_matcher_does(
    carried_over: float, batch: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rounds as the bench's (`bench/bench_guards.py`) but smaller: the tracker's known findings,
    active and recently closed, against a review that repeats, edits, rewords and replaces them.
    The word index counts a batch of issues at once: batches of 7 cut every review in many."""
    monkeypatch.setattr(_WordIndex, "BATCH", batch)
    rng = random.Random(int(carried_over * 10))
    tracker, previous = FindingTracker(), [finding_text(rng) for _ in range(150)]
    for iteration in range(1, 6):
        review = issues(previous)
        for at, issue in enumerate(review):
            issue.location = rng.choice(FILES) if at % 7 == 0 else ""
        known = [f for f in tracker.findings if f.active or (f.resolved_at or 0) >= iteration - 1]
        assert match_findings(review, known) == straightforward_match(review, known)
        tracker = after_fix(after_review(tracker, iteration, review, []), iteration, None)
        kept = int(len(previous) * carried_over)
        previous = [
            rng.choice([slightly_edited, reworded_in_words])(text, rng) for text in previous[:kept]
        ] + [finding_text(rng) for _ in range(len(previous) - kept)]


def test_a_pair_at_the_very_edge_of_the_pair_bounds_is_still_measured() -> None:
    """Twelve substitutions in sixty distinct characters: a similarity of exactly 0.8, and pair
    counts that differ by exactly 4 a substitution in both tables, so both bounds are met with
    no slack; unlike descriptions sit next to it alphabetically, forwards and backwards, so the
    cheap first pass misses it and the bounds decide whether it is measured."""
    rng = random.Random(4)  # a draw whose pairs fall in distinct buckets of both tables
    chars = rng.sample([chr(0x4E00 + n) for n in range(2000)], 72)
    text = "".join(chars[:60])
    other = list(text)
    for n, at in enumerate(range(2, 60, 5)):
        other[at] = chars[60 + n]
    edge = "".join(other)
    assert Levenshtein.distance(text, edge) == 12
    for size in (BigramCounts.BUCKETS, BigramCounts.FINER):
        mine, theirs = bigram_counts([text, edge], size).astype(int)
        assert np.abs(mine - theirs).sum() == 4 * 12
    decoys = [
        text[:10] + "a" * 50,
        text[:10] + "\uac00" * 50,
        "a" * 50 + text[-10:],
        "\uac00" * 50 + text[-10:],
    ]
    assert match_findings(issues([text]), issues([edge, *decoys])) == [0]
