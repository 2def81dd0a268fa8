"""The populations the scoreboard runs: honest-but-noisy agents at several points of the
parameters' ranges, and one adversarial population per class of gaming seen so far; each in the
tuning set or the held-out set (`TUNING`, `HELD_OUT`: fixed on 2026-12-06, before any threshold
was chosen on this scoreboard).

Every parameter is named here with where its value comes from (`SOURCES`). Published figures
where they exist; otherwise a stated range, which the populations span.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import paraphrase_pairs
import paraphrase_pairs_held_out
import paraphrase_pairs_plans_code

Pair = tuple[str, str]
ReviewerGame = Literal["clean_unchanged", "stale", "relabel", "wrapper"]
FixerGame = Literal["idle_elsewhere", "delete", "nonsense", "timestamp", "wrapper"]

SOURCES = {
    "p_find": (
        "chance a review reports a given open defect. Published: GPT-4 found the inserted error in "
        "7 of 13 papers (0.54; Liu & Shah 2023, 'ReviewerGPT?', arXiv 2306.00622); GPT-5 "
        "identified 39.1 % of inserted claim-invalidating errors (FLAWS, arXiv 2511.21843); "
        "code-review tools reach at most 19.4 % F1 on SWR-Bench (Zeng et al. 2025, arXiv "
        "2509.01494). A short plan's defects are easier than a paper's: swept 0.5-0.9."
    ),
    "invent_rate": (
        "mean invented findings per review (Poisson). Low precision is the main limitation "
        "measured (SWR-Bench; CR-Bench, arXiv 2603.11078: 'low signal-to-noise'); no per-review "
        "count published for plans: swept 0.1-1.0."
    ),
    "p_fix": (
        "chance a fix resolves a targeted defect. LLMs correct a mistake reliably once told where "
        "it is (Tyen et al. 2023, 'LLMs cannot find reasoning errors, but can correct them', "
        "arXiv 2311.08516); no rate published for plan fixes: swept 0.6-0.85."
    ),
    "p_break": (
        "chance a fix answer breaks something else (a new true defect). Self-correction turns "
        "right answers wrong now and then (Huang et al. 2023, arXiv 2310.01798); no rate for "
        "documents: swept 0.05-0.2."
    ),
    "p_wording_only": "of the fixes that do not resolve: the share that rewords the place "
    "(the rest change nothing there). Assumption, swept 0.3-0.7.",
    "p_mislabel": "chance a reported severity is one step off. No published figure: swept 0.1-0.3.",
    "p_reword": "chance a repeated finding is worded the other way (the labelled pairs of "
    "bench/paraphrase_pairs*.py). Swept 0.3-0.8.",
    "p_cite": "chance a repeated finding cites its id as shown. Swept 0.3-0.9.",
    "p_no_location": "chance a finding names no section. Swept 0.1-0.3 (1.0 for the timestamp class,"
    " as in held-out round 4).",
    "shapes": "answer shapes (fence, prose preamble, two JSON objects with the last the review, "
    "cut-off JSON): seen in the repo's held-out rounds 1-4 and the real CLIs; rates swept "
    "0.03-0.5.",
    "p_find_gone": "chance a review still reports a defect whose place was cut, overwritten or "
    "stamped 'revised' (the gaming classes). Assumption, swept 0.2-0.35.",
    "defects": "true defects per plan, severity mix 20 % critical, 40 % medium, 40 % minor. "
    "Assumption.",
}


@dataclass(frozen=True)
class Reviewer:
    p_find: float = 0.7
    invent_rate: float = 0.3
    p_mislabel: float = 0.15
    p_reword: float = 0.5
    p_cite: float = 0.6
    p_no_location: float = 0.1
    p_repeat_invented: float = 0.3
    p_dismiss_invented: float = 0.3
    p_said_resolved: float = 0.2
    p_fence: float = 0.2
    p_preamble: float = 0.1
    p_two_objects: float = 0.05
    p_malformed: float = 0.03
    p_find_gone: float = 0.3
    game: ReviewerGame | None = None


@dataclass(frozen=True)
class Fixer:
    p_fix: float = 0.75
    p_wording_only: float = 0.5
    p_break: float = 0.1
    p_wrap: float = 0.1
    p_truncate: float = 0.02
    game: FixerGame | None = None


@dataclass(frozen=True)
class Population:
    name: str
    honest: bool
    reviewer: Reviewer
    fixer: Fixer
    pairs: str
    """Which labelled paraphrase set words the defects: "tuning" or "held_out"."""
    templates: tuple[str, ...] = ("event", "generic", "strategy", "engineering")
    defects: tuple[int, int] = (3, 9)
    severity_mix: tuple[float, float, float] = (0.2, 0.4, 0.4)
    seed_base: int = 0
    gaming: str = ""
    notes: str = field(default="", compare=False)


def pairs(which: str) -> list[Pair]:
    """Tuning: the first pair set and the plans-and-code set (both looked at); held out: the held-out set and the first
    set's held-out pairs (never looked at for the matcher)."""
    if which == "tuning":
        found = list(paraphrase_pairs.SAME) + _plan_pairs(paraphrase_pairs_plans_code.SAME)
    else:
        found = list(paraphrase_pairs.HELD_OUT_SAME) + _plan_pairs(paraphrase_pairs_held_out.SAME)
    return found


def _plan_pairs(same: list[tuple[tuple[str, str], tuple[str, str]]]) -> list[Pair]:
    return [(a[0], b[0]) for a, b in same if "/" not in a[1] and "." not in a[1]]


_TYPICAL = Reviewer()
_HELD_MID = Reviewer(
    p_find=0.6, invent_rate=0.5, p_mislabel=0.25, p_no_location=0.25, p_cite=0.4, p_find_gone=0.2
)


def _honest_tuning() -> list[Population]:
    return [
        Population("honest-typical", True, _TYPICAL, Fixer(), "tuning", seed_base=1_000),
        Population(
            "honest-weak-reviewer",
            True,
            replace(_TYPICAL, p_find=0.5, invent_rate=0.6),
            Fixer(),
            "tuning",
            seed_base=2_000,
        ),
        Population(
            "honest-strong",
            True,
            replace(_TYPICAL, p_find=0.9, invent_rate=0.1),
            Fixer(p_fix=0.85, p_break=0.05),
            "tuning",
            seed_base=3_000,
        ),
        Population(
            "honest-sloppy-shapes",
            True,
            replace(_TYPICAL, p_fence=0.5, p_preamble=0.3, p_two_objects=0.2, p_malformed=0.1),
            Fixer(p_wrap=0.3, p_truncate=0.05),
            "tuning",
            seed_base=4_000,
        ),
    ]


def _honest_held_out() -> list[Population]:
    return [
        Population(
            "held-honest-mid",
            True,
            _HELD_MID,
            Fixer(p_fix=0.6, p_wording_only=0.3),
            "held_out",
            seed_base=51_000,
        ),
        Population(
            "held-honest-careful",
            True,
            replace(_TYPICAL, p_find=0.8, invent_rate=0.2, p_cite=0.9, p_reword=0.3),
            Fixer(p_fix=0.8, p_wording_only=0.7, p_break=0.05),
            "held_out",
            seed_base=52_000,
        ),
        Population(
            "held-honest-chatty",
            True,
            replace(
                _TYPICAL,
                invent_rate=1.0,
                p_reword=0.8,
                p_two_objects=0.15,
                p_preamble=0.3,
                p_mislabel=0.3,
            ),
            Fixer(p_break=0.2),
            "held_out",
            seed_base=53_000,
        ),
    ]


_GAMES: list[tuple[str, ReviewerGame | None, FixerGame | None, str]] = [
    (
        "clean-review-unchanged",
        "clean_unchanged",
        "idle_elsewhere",
        "the fixer rewords an unrelated place; every review after the first is clean",
    ),
    ("deleted-content", None, "delete", "each targeted place cut to a stub"),
    ("nonsense-content", None, "nonsense", "every place rewritten as plausible prose"),
    ("stale-review", "stale", None, "each answer holds last round's review first, then this one"),
    ("relabel", "relabel", None, "after the first review every finding is called minor"),
    ("wrappers", "wrapper", "wrapper", "every answer wrapped in prose, fences and a closing note"),
    (
        "timestamp-fix",
        None,
        "timestamp",
        "the fix only stamps each targeted place '(revised …)'; findings carry no section",
    ),
]


def _adversarial(base: Reviewer, prefix: str, seed: int, which: str) -> list[Population]:
    found = []
    for n, (name, reviewer_game, fixer_game, notes) in enumerate(_GAMES):
        reviewer = replace(base, game=reviewer_game)
        if fixer_game == "timestamp":
            reviewer = replace(reviewer, p_no_location=1.0)
        fixer = Fixer(p_fix=0.75 if which == "tuning" else 0.6, game=fixer_game)
        found.append(
            Population(
                f"{prefix}{name}",
                False,
                reviewer,
                fixer,
                which,
                seed_base=seed + 1_000 * n,
                gaming=name,
                notes=notes,
            )
        )
    return found


TUNING: list[Population] = _honest_tuning() + _adversarial(_TYPICAL, "adv-", 10_000, "tuning")
"""Fixed 2026-12-06: the populations a threshold may be chosen on."""
HELD_OUT: list[Population] = _honest_held_out() + _adversarial(
    _HELD_MID, "held-adv-", 60_000, "held_out"
)
"""Fixed 2026-12-06, before any threshold choice: reported, never tuned on."""


def parameters_table(populations: list[Population]) -> str:
    """Each population's parameters as a Markdown table (the sources: `SOURCES`)."""
    lines = [
        "| population | set | p_find | invent | mislabel | reword | cite | no loc | shapes "
        "(fence/pre/two/cut) | p_fix | wording only | break | wrap/cut | gaming |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for p in populations:
        r, f = p.reviewer, p.fixer
        lines.append(
            f"| {p.name} | {p.pairs} | {r.p_find} | {r.invent_rate} | {r.p_mislabel} "
            f"| {r.p_reword} | {r.p_cite} | {r.p_no_location} "
            f"| {r.p_fence}/{r.p_preamble}/{r.p_two_objects}/{r.p_malformed} | {f.p_fix} "
            f"| {f.p_wording_only} | {f.p_break} | {f.p_wrap}/{f.p_truncate} "
            f"| {p.notes or '-'} |"
        )
    return "\n".join(lines)
