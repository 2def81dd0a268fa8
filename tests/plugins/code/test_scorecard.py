"""The Open Source Discovery scorecard: shape checked by pydantic, then threshold and red flags."""

from __future__ import annotations

from typing import Any

from thoughtforge.plugins.code.scorecard import (
    MIN_TOTAL,
    SIGNALS,
    Recommendation,
    validate_recommendations,
)


def card(score: int = 2, **changes: Any) -> dict[str, Any]:
    """A recommendation as the agent answers it, every signal scored `score`."""
    recommendation: dict[str, Any] = {
        "name": "httpx",
        "purpose": "HTTP client",
        "version": "0.27.0",
        "scorecard": {
            "signals": [
                {"name": name, "score": score, "evidence": f"{name} data"} for name in SIGNALS
            ],
            "red_flags": [],
        },
    }
    recommendation.update(changes)
    return recommendation


def scored(scores: list[int]) -> dict[str, Any]:
    recommendation = card()
    for signal, score in zip(recommendation["scorecard"]["signals"], scores, strict=True):
        signal["score"] = score
    return recommendation


def test_there_are_eight_signals_and_the_threshold_is_ten_of_sixteen() -> None:
    assert len(SIGNALS) == 8
    assert MIN_TOTAL == 10


def test_a_qualifying_card_is_kept_with_its_evidence() -> None:
    accepted, rejected = validate_recommendations([card()])
    assert rejected == []
    [recommendation] = accepted
    assert recommendation.qualifies
    assert recommendation.rejection_reason is None
    assert recommendation.scorecard.total == 16
    assert recommendation.scorecard.signals[0].evidence == "maintenance data"


def test_the_minimum_total_qualifies_and_one_less_does_not() -> None:
    at_minimum = Recommendation.model_validate(scored([2, 2, 2, 1, 1, 1, 1, 0]))
    assert at_minimum.scorecard.total == MIN_TOTAL
    assert at_minimum.qualifies
    below = Recommendation.model_validate(scored([2, 2, 1, 1, 1, 1, 1, 0]))
    assert not below.qualifies
    assert below.rejection_reason == "scored 9 of 16, below the minimum of 10"


def test_one_red_flag_disqualifies_a_full_score() -> None:
    flagged = card()
    flagged["scorecard"]["red_flags"] = [
        {"name": "archived", "evidence": "repository archived 2023-04-01"}
    ]
    accepted, rejected = validate_recommendations({"recommendations": [flagged, card()]})
    assert [r.name for r in accepted] == ["httpx"]
    assert rejected == ["'httpx': red flag archived (repository archived 2023-04-01)"]


def test_red_flags_and_a_low_score_are_both_given() -> None:
    flagged = card(score=1, name="leftpad")
    flagged["scorecard"]["red_flags"] = [{"name": "no_license", "evidence": "no LICENSE file"}]
    _, [reason] = validate_recommendations([flagged])
    assert reason == (
        "'leftpad': red flag no_license (no LICENSE file); scored 8 of 16, below the minimum of 10"
    )


def test_missing_and_repeated_signals_are_malformed() -> None:
    missing = card()
    missing["scorecard"]["signals"] = missing["scorecard"]["signals"][:6]
    replaced = card(name="replaced")
    replaced["scorecard"]["signals"][1]["name"] = "maintenance"
    repeated = card(name="repeated")
    repeated["scorecard"]["signals"].append({"name": "testing", "score": 0, "evidence": "none"})
    accepted, rejected = validate_recommendations([missing, replaced, repeated])
    assert accepted == []
    assert "'httpx': malformed" in rejected[0]
    assert "signals not scored: security, responsiveness" in rejected[0]
    assert "signals not scored: adoption" in rejected[1]
    assert "signals scored more than once: testing" in rejected[2]


def test_unknown_signal_and_red_flag_names_are_malformed() -> None:
    unknown_signal = card()
    unknown_signal["scorecard"]["signals"][0]["name"] = "popularity"
    unknown_flag = card(name="flagged")
    unknown_flag["scorecard"]["red_flags"] = [{"name": "looks_odd", "evidence": "hunch"}]
    _, rejected = validate_recommendations([unknown_signal, unknown_flag])
    assert "scorecard.signals.0.name: Input should be 'maintenance'" in rejected[0]
    assert "scorecard.red_flags.0.name: Input should be 'archived'" in rejected[1]


def test_scores_out_of_range_are_malformed() -> None:
    too_high, negative, fraction = card(), card(), card()
    too_high["scorecard"]["signals"][2]["score"] = 3
    negative["scorecard"]["signals"][2]["score"] = -1
    fraction["scorecard"]["signals"][2]["score"] = 1.5
    accepted, rejected = validate_recommendations([too_high, negative, fraction])
    assert accepted == []
    assert "scorecard.signals.2.score: Input should be less than or equal to 2" in rejected[0]
    assert "scorecard.signals.2.score: Input should be greater than or equal to 0" in rejected[1]
    assert "scorecard.signals.2.score: Input should be a valid integer" in rejected[2]


def test_a_signal_or_red_flag_without_evidence_is_malformed() -> None:
    no_evidence, blank_evidence, flag_without = card(), card(), card()
    del no_evidence["scorecard"]["signals"][0]["evidence"]
    blank_evidence["scorecard"]["signals"][0]["evidence"] = "   "
    flag_without["scorecard"]["red_flags"] = [{"name": "archived"}]
    accepted, rejected = validate_recommendations([no_evidence, blank_evidence, flag_without])
    assert accepted == []
    assert "scorecard.signals.0.evidence: Field required" in rejected[0]
    assert "scorecard.signals.0.evidence: String should have at least 1 character" in rejected[1]
    assert "scorecard.red_flags.0.evidence: Field required" in rejected[2]


def test_each_rejection_names_its_recommendation() -> None:
    _, rejected = validate_recommendations(["httpx", {"version": "1.0"}, card(score=0, name=" ")])
    assert rejected[0].startswith("recommendation 1: malformed")
    assert rejected[1].startswith("recommendation 2: malformed (name: Field required;")
    assert rejected[2].startswith("recommendation 3: malformed (name: String should have")


def test_a_shape_that_is_not_a_list_rejects_everything() -> None:
    assert validate_recommendations({"recommendations": "httpx"}) == (
        [],
        ["the recommendations are not a list"],
    )
    assert validate_recommendations(None) == ([], ["the recommendations are not a list"])
    assert validate_recommendations([]) == ([], [])
