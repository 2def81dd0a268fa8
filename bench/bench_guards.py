"""How long an iteration's bookkeeping takes when 1,000 current issues meet 1,000 known findings:
the tracker taking in the review (matching every issue to the findings) and the guards reading it.

Run: pytest bench/bench_guards.py --benchmark-only -p no:cacheprovider -o addopts=''
(`bench_paraphrase.py` reports the worst round of a whole loop as CPU time.)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from thoughtforge.config import PolishConfig
from thoughtforge.core.state import TrajectoryEntry
from thoughtforge.models import Issue, Severity
from thoughtforge.phases.polish.finding_tracker import FindingTracker, after_fix, after_review
from thoughtforge.phases.polish.guards import GuardReport, evaluate

ISSUES = 1_000
FILES = [
    "api/routes.py",
    "core/cache.py",
    "jobs/upload.py",
    "billing/export.py",
    "docs/plan.md",
    "web/settings.tsx",
    "db/migrate.py",
    "auth/tokens.py",
    "search/index.py",
    "cli/main.py",
]
VOCABULARY = """
    the retry loop session cache importer rate limiter migration settings page budget table
    rollout plan risk register upload worker middleware search index billing export webhook
    handler does not handle an empty response swallows timeout exception contradicts acceptance
    criterion has no owner or due date assumes UTC but source data is local time duplicates logic
    from missing rollback step before leaks token into logs keeps unbounded list never closes
    connection opened by when network drops for accounts created before if two jobs run at once
    under default configuration after partial failure on first run vendor deposit guest count
    schedule overlaps venue capacity exceeds estimate lacks contingency line item unclear scope
"""
WORDS = VOCABULARY.split()


def description(rng: random.Random) -> str:
    """60–120 characters of reviewer prose: a location, then a finding in the project's words."""
    length = rng.randint(60, 120)
    text = f"{rng.choice(FILES)}:{rng.randint(1, 900)}"
    while len(text) < length:
        text += " " + rng.choice(WORDS)
    return text[:length].rstrip() + "."


def edited(text: str, rng: random.Random) -> str:
    """The same finding reworded slightly, as a reviewer repeats itself: in its second half, a
    word dropped or one of emphasis added."""
    words = text.removesuffix(".").split(" ")
    at = rng.randint(len(words) // 2, len(words) - 1)
    if rng.random() < 0.5 and len(words) > 3:
        del words[at]
    else:
        words.insert(at, rng.choice(["again", "still"]))
    return " ".join(words) + "."


def near_miss(text: str, rng: random.Random) -> str:
    """Another finding worded like a known one: a word of its second half swapped for another
    (a reviewer's "lacks owners" after "lacks dates"), which the tracker must tell apart."""
    words = text.removesuffix(".").split(" ")
    at = rng.randint(len(words) // 2, len(words) - 1)
    words[at] = rng.choice([word for word in WORDS if len(word) > 3 and word != words[at]])
    return " ".join(words) + "."


def issues(descriptions: list[str]) -> list[Issue]:
    severities = [Severity.CRITICAL, Severity.MEDIUM, Severity.MINOR]
    return [Issue(severity=severities[n % 3], description=d) for n, d in enumerate(descriptions)]


def entry(n: int) -> TrajectoryEntry:
    """An iteration far above the thresholds: every guard before stagnation passes."""
    return TrajectoryEntry(
        iteration=n,
        critical=334,
        medium=333,
        minor=333,
        total=ISSUES,
        fix_applied=True,
        timestamp=datetime(2024, 5, 1, tzinfo=UTC),
    )


def loop_reviews(
    carried_over: float, rounds: int, reworded: Callable[[str, random.Random], str] = edited
) -> list[list[Issue]]:
    """`rounds` reviews of 1,000 issues each: a share of the previous ones `reworded`, the rest
    new."""
    rng = random.Random(42)
    reviews = [[description(rng) for _ in range(ISSUES)]]
    for _ in range(rounds - 1):
        kept = int(ISSUES * carried_over)
        previous = reviews[-1]
        reviews.append(
            [reworded(d, rng) for d in previous[:kept]]
            + [description(rng) for _ in range(ISSUES - kept)]
        )
    return [issues(review) for review in reviews]


def one_round(
    tracker: FindingTracker,
    trajectory: list[TrajectoryEntry],
    review: list[Issue],
    config: PolishConfig,
) -> tuple[FindingTracker, GuardReport]:
    """What an iteration costs beyond the agents: take the review in, ask the guards, take the
    fix in (it changed every place)."""
    n = trajectory[-1].iteration
    reviewed = after_review(tracker, n, review, [])
    report = evaluate(trajectory, reviewed, config)
    return after_fix(reviewed, n, None), report


@pytest.mark.parametrize("carried_over", [0.0, 0.5, 0.9])
def test_one_round_1000_by_1000(benchmark: BenchmarkFixture, carried_over: float) -> None:
    first, current = loop_reviews(carried_over, 2)
    config = PolishConfig()
    tracker, _ = one_round(FindingTracker(), [entry(1)], first, config)
    trajectory = [entry(1), entry(2)]

    _, report = benchmark(one_round, tracker, trajectory, current, config)

    assert report.verdict == "continue"
