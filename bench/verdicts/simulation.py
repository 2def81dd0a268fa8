"""One polish run of a population's agents over a plan with known defects, every decision made
by the real modules (`real`), and the oracle's run beside it: the same plan and fixer, with a
reviewer that reports the truth and a `done` that reads it."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import NamedTuple

from bench.verdicts import fixer, real, reviewer
from bench.verdicts.model import Plan, new_plan
from bench.verdicts.populations import Population, pairs
from thoughtforge.config import PolishConfig
from thoughtforge.core.state import PolishState
from thoughtforge.models import HaltReason, Issue, Severity
from thoughtforge.phases.polish.finding_tracker import FindingTracker


@dataclass
class Step:
    """What truly happened in one iteration, for judging the halt's stated cause."""

    malformed: int = 0
    fix_asked: bool = False
    fix_broken_text: bool = False
    fix_meant_change: bool = False
    broke: int = 0
    invented: int = 0
    true_reported: int = 0
    open_after: dict[Severity, int] = field(default_factory=dict)


class Ending(NamedTuple):
    """How the loop ended, in the guards' (or the review reader's) words."""

    verdict: str
    halt_reason: HaltReason | None
    guard: str | None
    reason: str


@dataclass
class Run:
    population: str
    seed: int
    verdict: str
    halt_reason: HaltReason | None
    guard: str | None
    iterations: int
    calls: int
    open_at_end: dict[Severity, int]
    false_done: bool
    oracle_iterations: int | None
    oracle_calls: int
    true_cause: bool | None
    reason: str = ""


def over_thresholds(counts: dict[Severity, int], cfg: PolishConfig) -> bool:
    return (
        counts[Severity.CRITICAL] > cfg.critical_max
        or counts[Severity.MEDIUM] > cfg.medium_max
        or counts[Severity.MINOR] > cfg.minor_max
    )


_POOLS: dict[str, list[tuple[str, str]]] = {}


def _start(population: Population, seed: int) -> tuple[Plan, list[tuple[str, str]]]:
    pool = _POOLS.setdefault(population.pairs, pairs(population.pairs))
    rng = random.Random(f"plan-{population.seed_base + seed}")
    template = real.template(rng.choice(population.templates))
    count = rng.randint(*population.defects)
    return new_plan(template, rng, count, population.severity_mix, pool), pool


def simulate(population: Population, seed: int, cfg: PolishConfig | None = None) -> Run:
    cfg = cfg or real.config()
    plan, pool = _start(population, seed)
    oracle = _oracle(plan.copy(), population, seed, pool, cfg)
    rng = random.Random(f"run-{population.seed_base + seed}")
    state, tracker = PolishState(), FindingTracker()
    memory = reviewer.ReviewerState()
    truth: dict[str, int | None] = {}
    steps: list[Step] = []
    calls = 0
    document = plan.text()
    while True:
        n = state.iteration + 1
        step = Step()
        answer = reviewer.review(
            plan, real.shown(tracker), truth, n, population.reviewer, memory, pool, rng
        )
        step.invented = answer.origins.count(None)
        step.true_reported = len(answer.origins) - step.invented
        read = real.read_review(answer.texts.__getitem__, n, document, cfg.retry_malformed_output)
        calls += read.asked
        step.malformed = sum(answer.malformed[: read.asked])
        if read.review is None:
            steps.append(step)
            ending = Ending("halt", HaltReason.REVIEW_MALFORMED, None, read.refusal)
            return _ended(population, seed, ending, calls, plan, oracle, steps, cfg)
        reviewed, to_fix = real.take_review(tracker, read.review)
        _learn(truth, reviewed, n, answer)
        if read.review.issues:
            targets = [(issue, _origin(issue, reviewed, truth)) for issue in to_fix]
            meant, text, broken = fixer.fix(
                plan, targets, n, population.fixer, pool, population.severity_mix, rng
            )
            calls += 1
            fix, after = real.judge_fix(state, document, text, plan.template)
            step.fix_asked, step.fix_broken_text = True, broken
            step.fix_meant_change = meant.slots != plan.slots
            if fix.applied:
                step.broke = len(meant.defects) - len(plan.defects)
                plan, document = meant, after
        else:
            fix = real.no_fix()
        step.open_after = plan.true_counts()
        steps.append(step)
        verdict = real.judge(state, reviewed, read.review, fix, cfg)
        state, tracker = verdict.state, verdict.tracker
        report = verdict.report
        if report.verdict != "continue":
            ending = Ending(report.verdict, report.halt_reason, report.guard, report.reason)
            return _ended(population, seed, ending, calls, plan, oracle, steps, cfg)


def _learn(
    truth: dict[str, int | None], tracker: FindingTracker, n: int, answer: reviewer.Answer
) -> None:
    """Which true defect each finding reported now stands for (by the issue that reported it)."""
    said = {
        (issue["description"], issue["location"]): origin
        for issue, origin in zip(answer.issues, answer.origins, strict=True)
    }
    for finding in tracker.findings:
        if finding.last_reported == n:
            key = (finding.description, finding.location)
            if key in said:
                truth[finding.id] = said[key]
            else:
                truth.setdefault(finding.id, None)


def _origin(issue: Issue, tracker: FindingTracker, truth: dict[str, int | None]) -> int | None:
    for finding in tracker.active:
        if finding.description == issue.description and finding.location == issue.location:
            return truth.get(finding.id)
    return None


def _oracle(
    plan: Plan, population: Population, seed: int, pool: list[tuple[str, str]], cfg: PolishConfig
) -> tuple[int | None, int]:
    """The iteration at which a reviewer that reports the truth, with the same fixer, would end
    `done` (None: not within the ceiling), and its agent calls."""
    rng = random.Random(f"oracle-{population.seed_base + seed}")
    for n in range(1, cfg.max_iterations + 1):
        if not over_thresholds(plan.true_counts(), cfg):
            return n, 2 * n - 1
        targets = [
            (Issue(severity=d.severity, description=d.words[0], location=d.section), d.number)
            for d in plan.open_defects()
        ]
        meant, _, broken = fixer.fix(
            plan, targets, n, population.fixer, pool, population.severity_mix, rng
        )
        if not broken:  # a cut-off answer is refused: the plan stays as it was
            plan = meant
    return None, 2 * cfg.max_iterations


def _ended(
    population: Population,
    seed: int,
    ending: Ending,
    calls: int,
    plan: Plan,
    oracle: tuple[int | None, int],
    steps: list[Step],
    cfg: PolishConfig,
) -> Run:
    counts = plan.true_counts()
    false_done = ending.verdict == "done" and over_thresholds(counts, cfg)
    cause = None
    if ending.halt_reason is not None:
        cause = _cause_holds(ending.halt_reason, ending.guard, steps, cfg)
    return Run(
        population.name,
        seed,
        ending.verdict,
        ending.halt_reason,
        ending.guard,
        len(steps),
        calls,
        counts,
        false_done,
        oracle[0],
        oracle[1],
        cause,
        ending.reason,
    )


def _cause_holds(
    reason: HaltReason, guard: str | None, steps: list[Step], cfg: PolishConfig
) -> bool:
    """Whether what the halt says is what truly happened."""
    last = steps[-1]
    asked = [s for s in steps if s.fix_asked]
    if reason is HaltReason.REVIEW_MALFORMED:
        return last.malformed > cfg.retry_malformed_output
    if reason is HaltReason.FIX_OUTPUT_INVALID:
        return len(asked) >= 2 and all(s.fix_broken_text for s in asked[-2:])
    if reason is HaltReason.GUARD_FIX_UNCHANGED:
        idle = [s.fix_broken_text or not s.fix_meant_change for s in asked[-2:]]
        return len(asked) >= 2 and all(idle)
    if reason in (HaltReason.GUARD_FIX_REGRESSION, HaltReason.GUARD_HALLUCINATION):
        return any(s.broke > 0 for s in steps[-3:])
    if reason is HaltReason.GUARD_FABRICATION:
        return last.invented > last.true_reported
    if reason is HaltReason.GUARD_ISSUES_PERSIST:
        if guard == "contradiction":
            return True  # a silent second review of an unchanged place: literally what happened
        return over_thresholds(last.open_after, cfg) or last.open_after[Severity.CRITICAL] > 0
    if reason is HaltReason.GUARD_MAX_ITERATIONS:
        return over_thresholds(last.open_after, cfg)
    return True
