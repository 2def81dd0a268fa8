"""How long `evaluate` takes when it must match 1,000 current issues against 1,000 previous ones.

Run: pytest bench/bench_guards.py --benchmark-only -p no:cacheprovider -o addopts=''
"""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from thoughtforge.config import PolishConfig
from thoughtforge.core import TrajectoryEntry
from thoughtforge.models import Issue, Severity
from thoughtforge.phases.polish.guards import evaluate

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
    """The same finding reworded slightly, as a reviewer repeats itself."""
    cut = rng.randint(len(text) // 2, len(text) - 5)
    return text[:cut] + rng.choice(["", " again", " still"]) + text[cut + 3 :]


def issues(descriptions: list[str]) -> list[Issue]:
    severities = [Severity.CRITICAL, Severity.MEDIUM, Severity.MINOR]
    return [Issue(severity=severities[n % 3], description=d) for n, d in enumerate(descriptions)]


def plateau() -> list[TrajectoryEntry]:
    """Three equal totals far above the thresholds: every guard before stagnation passes."""
    counts = {"critical": 334, "medium": 333, "minor": 333}
    return [
        TrajectoryEntry(
            iteration=n,
            total=ISSUES,
            fix_applied=True,
            timestamp=datetime(2024, 5, 1, tzinfo=UTC),
            **counts,
        )
        for n in (1, 2, 3)
    ]


def reviews(carried_over: float) -> tuple[list[Issue], list[Issue]]:
    """The current and the previous review: a share of the previous issues reworded slightly,
    the rest new."""
    rng = random.Random(42)
    previous = [description(rng) for _ in range(ISSUES)]
    kept = int(ISSUES * carried_over)
    current = [edited(d, rng) for d in previous[:kept]]
    current += [description(rng) for _ in range(ISSUES - kept)]
    return issues(current), issues(previous)


@pytest.mark.parametrize("carried_over", [0.0, 0.5, 0.9])
def test_evaluate_1000_by_1000(benchmark: BenchmarkFixture, carried_over: float) -> None:
    current, previous = reviews(carried_over)
    trajectory, config = plateau(), PolishConfig()

    report = benchmark(evaluate, trajectory, current, previous, config)

    assert "stagnation" in [r.name for r in report.results]
    assert report.verdict == ("continue" if carried_over >= 0.7 else "done")
