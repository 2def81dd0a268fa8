"""Reading a reviewer's answer: where the JSON hides, which severities count, what is malformed."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from tests.fake_openai import FakeOpenAI, Reply
from tests.polish_setup import polishing_project
from thoughtforge.config import Config, OpenAIAgentSpec
from thoughtforge.errors import CutOffReply, ThoughtForgeError
from thoughtforge.models import Counts, Issue, Phase, Severity
from thoughtforge.phases.engine import PhaseEngine
from thoughtforge.phases.polish.iteration import PolishSteps
from thoughtforge.phases.polish.review import (
    CodeReview,
    Dismissal,
    MalformedReview,
    PlanReview,
    merge_duplicates,
    parse_review,
    prompt_echoes,
    still_standing,
)

PLAN, CODE = PlanReview, CodeReview


def issue(
    severity: str = "minor", description: str = "Budget table has no totals row"
) -> dict[str, object]:
    return {
        "severity": severity,
        "description": description,
        "location": "§3",
        "recommendation": "x",
    }


def review_json(*issues: dict[str, object], **extra: object) -> str:
    return json.dumps({"issues": list(issues), **extra})


def test_a_plain_json_answer_is_parsed() -> None:
    review = parse_review(review_json(issue("critical"), issue("medium")), PLAN)
    assert isinstance(review, PlanReview)
    assert [i.severity for i in review.issues] == [Severity.CRITICAL, Severity.MEDIUM]
    assert review.issues[0].location == "§3"


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("blocking", Severity.CRITICAL),
        ("HIGH", Severity.CRITICAL),
        ("High", Severity.CRITICAL),
        ("low", Severity.MINOR),
        ("Suggestion", Severity.MINOR),
        ("CRITICAL", Severity.CRITICAL),
        ("Medium", Severity.MEDIUM),
        (" minor ", Severity.MINOR),
    ],
)
def test_severity_aliases_are_case_insensitive(written: str, meant: Severity) -> None:
    assert parse_review(review_json(issue(written)), PLAN).issues[0].severity is meant


def test_aliases_also_apply_to_issues_built_in_code() -> None:
    assert Issue(severity="Blocking", description="d").severity is Severity.CRITICAL  # type: ignore[arg-type]


def test_an_unknown_severity_names_the_issue_and_quotes_the_reviewer() -> None:
    text = review_json(issue(), issue(), issue("urgent"))
    with pytest.raises(MalformedReview) as caught:
        parse_review(text, PLAN)
    assert str(caught.value) == (
        "issues[2].severity: Input should be 'critical', 'medium' or 'minor' (got 'urgent')"
    )


def test_a_json_fence_inside_prose_is_extracted() -> None:
    text = f"Here is my review.\n\n```json\n{review_json(issue('high'))}\n```\n\nThanks!"
    assert parse_review(text, PLAN).counts == Counts(critical=1)


def test_a_plain_fence_is_extracted() -> None:
    text = f"Review:\n```\n{review_json(issue('low'), issue('low'))}\n```"
    assert parse_review(text, PLAN).counts == Counts(minor=2)


def test_a_json_fence_wins_over_an_example_object_earlier_in_the_prose() -> None:
    text = (
        'The format is {"issues": []}, so here is mine:\n'
        f"```json\n{review_json(issue('medium'))}\n```"
    )
    assert parse_review(text, PLAN).counts == Counts(medium=1)


def test_a_fence_in_another_language_is_not_taken_for_the_review() -> None:
    text = (
        'An empty one reads:\n```text\n{"issues": []}\n```\n'
        f"Mine:\n```json\n{review_json(issue('critical'))}\n```"
    )
    assert parse_review(text, PLAN).counts == Counts(critical=1)


def test_an_object_in_prose_is_found_even_with_braces_in_its_strings() -> None:
    description = "Template closes with } before {{name}} is filled"
    text = (
        "I used {placeholders} while reading. Result: "
        f"{review_json(issue('minor', description))} -- let me know {{if}} you need more."
    )
    review = parse_review(text, PLAN)
    assert review.issues[0].description == description


def test_an_object_that_does_not_fit_the_schema_is_passed_over() -> None:
    text = f'Context: {{"files_read": 3}}. Review: {review_json(issue("medium"))}'
    assert parse_review(text, PLAN).counts == Counts(medium=1)
    text = f'Review: {review_json(issue("medium"))}. Context: {{"files_read": 3}}.'
    assert parse_review(text, PLAN).counts == Counts(medium=1)


def test_last_rounds_empty_review_then_the_new_findings_is_read_by_the_findings() -> None:
    """Before: the first object was read, the stale `{"issues": []}`, and the loop ended done
    with a critical finding never counted."""
    for stale, new in (
        ('{"issues": []}', review_json(issue("critical"), issue("medium", "No rain plan"))),
        ('```json\n{"issues": []}\n```', f"```json\n{review_json(issue('critical'))}\n```"),
    ):
        text = f"Last round's review was:\n{stale}\nThis round I found:\n{new}"
        assert parse_review(text, PLAN).counts.critical == 1, text


def test_a_draft_then_its_correction_is_read_by_the_correction() -> None:
    text = (
        f"Draft: {review_json(issue('minor'))}\n"
        f"On a second look it is worse: {review_json(issue('critical'), issue('minor'))}"
    )
    assert parse_review(text, PLAN).counts == Counts(critical=1, minor=1)


def test_a_complete_empty_review_before_a_cut_off_one_is_no_answer() -> None:
    """Before: the complete `{"issues": []}` was read and the cut findings after it lost."""
    text = '{"issues": []}\nUpdated: {"issues": [{"severity": "critical", "description": "No ven'
    with pytest.raises(CutOffReply, match="cut off"):
        parse_review(text, PLAN)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Looks good to me, nothing to fix.",
        "[1, 2, 3]",
    ],
)
def test_an_answer_without_a_json_object_is_malformed(text: str) -> None:
    with pytest.raises(MalformedReview, match=r"^no JSON object found$"):
        parse_review(text, PLAN)


def test_a_cut_off_review_is_reported_as_cut_off_not_as_an_inner_object_missing_issues() -> None:
    """A 135M model with a JSON-only mode copied "critical|medium|minor" and was cut off; the cut
    answer was read as its first inner object and reported as "issues: Field required"."""
    text = (
        '{"issues": [{"severity": "critical|medium|minor", "description": "d", "location": "l", '
        '"recommendation": "r"}, {"severity": "critical|medium|minor", "descr'
    )
    with pytest.raises(CutOffReply, match="cut off"):
        parse_review(text, PLAN)


@pytest.mark.parametrize("text", ['{"summary": "all fine"}', json.dumps([issue()])])
def test_a_missing_issues_list_is_malformed(text: str) -> None:
    with pytest.raises(MalformedReview, match=r"^issues: Field required$"):
        parse_review(text, PLAN)


def test_a_missing_description_is_malformed() -> None:
    with pytest.raises(MalformedReview, match=r"^issues\[0\]\.description: Field required$"):
        parse_review('{"issues": [{"severity": "minor"}]}', PLAN)


def test_the_error_comes_from_the_object_meant_as_the_review() -> None:
    text = f'Read {{"files": 2}} then wrote {review_json(issue("urgent"))}'
    with pytest.raises(MalformedReview, match=r"^issues\[0\]\.severity: "):
        parse_review(text, PLAN)


def test_further_errors_are_counted_not_listed() -> None:
    text = '{"issues": [{"severity": "urgent", "description": "a"}, {"severity": "minor"}]}'
    with pytest.raises(MalformedReview, match=r"\(got 'urgent'\); and 1 more$"):
        parse_review(text, PLAN)


def test_malformed_review_is_reported_to_the_operator() -> None:
    assert issubclass(MalformedReview, ThoughtForgeError)


def test_counts_are_derived_from_the_issues_never_from_the_agent() -> None:
    text = review_json(
        issue("critical"),
        issue("minor"),
        issue("suggestion"),
        critical=0,
        minor=7,
        total=0,
        counts={"critical": 0, "medium": 5, "minor": 0},
    )
    review = parse_review(text, PLAN)
    assert review.counts == Counts(critical=1, medium=0, minor=2)
    assert review.model_dump() == {
        "issues": [i.model_dump() for i in review.issues],
        "dismissed": [],
        "resolved": [],
        "evidence": [],
    }


def test_unknown_keys_are_ignored() -> None:
    text = review_json(issue() | {"id": "R-1", "confidence": 0.9}, summary="ok", verdict="pass")
    review = parse_review(text, PLAN)
    assert len(review.issues) == 1


def test_a_code_review_carries_test_results() -> None:
    text = review_json(issue("high"), tests={"total": 12, "passed": 11, "failed": 1})
    review = parse_review(text, CODE)
    assert isinstance(review, CodeReview)
    assert (review.tests.total, review.tests.passed, review.tests.failed) == (12, 11, 1)
    assert review.counts == Counts(critical=1)


def test_a_code_review_without_test_results_is_malformed() -> None:
    with pytest.raises(MalformedReview, match=r"^tests: Field required$"):
        parse_review(review_json(issue()), CODE)


def test_negative_test_counts_are_malformed() -> None:
    text = review_json(tests={"total": 3, "passed": 4, "failed": -1})
    with pytest.raises(MalformedReview, match=r"^tests\.failed: Input should be greater than"):
        parse_review(text, CODE)


def test_a_plan_review_ignores_test_results() -> None:
    text = review_json(tests={"total": 1, "passed": 1, "failed": 0})
    review = parse_review(text, PLAN)
    assert isinstance(review, PlanReview)
    assert review.issues == []


def test_the_review_step_sends_its_schema_and_a_reviewer_held_to_it_is_read(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a JSON-only mode the reviewer copied "critical|medium|minor" from the prompt: the
    schema's enum is what the server must hold it to."""
    project = polishing_project(config)
    with FakeOpenAI() as server:
        config.agents.available["local"] = OpenAIAgentSpec.model_validate(
            {"type": "openai", "base_url": f"{server.url}/v1", "model": "tiny"}
        )
        server.script(Reply(review_json(issue("medium"))))
        steps = PolishSteps(PhaseEngine(project, config, Phase.POLISHING, None), "local", "local")
        stored = steps.review(1, steps.constraints(), "None.")
    schema = server.bodies[0]["response_format"]["json_schema"]["schema"]
    assert schema == PlanReview.model_json_schema()
    assert schema["$defs"]["Severity"]["enum"] == ["critical", "medium", "minor"]
    assert [i.severity for i in stored.issues] == [Severity.MEDIUM]


# --- placeholders, schema echoes and duplicates (issue 33) --------------------------------------

PLAN_PROMPT_EXAMPLE = (
    '{"issues": [{"severity": "critical|medium|minor", "description": "...", '
    '"location": "<section>", "recommendation": "..."}]}'
)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("description", "<description>"),
        ("description", "..."),
        ("description", "…"),
        ("description", "Description"),
        ("description", "critical|medium|minor"),
        ("description", "One finding of a reviewer."),
        ("location", "<section>"),
        ("location", "path:line"),
        ("recommendation", "..."),
        ("recommendation", "<recommendation>"),
    ],
)
def test_an_issue_echoing_the_prompt_or_a_placeholder_is_malformed(field: str, value: str) -> None:
    echoes = prompt_echoes(f"Answer with:\n{PLAN_PROMPT_EXAMPLE}\n", PLAN)
    echoed = {**issue("critical"), field: value}
    with pytest.raises(MalformedReview, match=rf"issues\[0\]\.{field} is .*a placeholder"):
        parse_review(review_json(echoed), PLAN, echoes)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("location", "app.py, <module>"),
        ("location", "<module>"),
        ("location", "Section 3"),
        ("description", "The budget ... has no contingency line"),
        ("recommendation", "Add a 10% contingency (about 1.5k)."),
    ],
)
def test_real_findings_with_brackets_or_ellipses_are_read(field: str, value: str) -> None:
    echoes = prompt_echoes(PLAN_PROMPT_EXAMPLE, PLAN)
    review = parse_review(review_json({**issue("medium"), field: value}), PLAN, echoes)
    assert getattr(review.issues[0], field) == value


def test_duplicates_count_once_at_their_highest_severity() -> None:
    first = Issue(severity=Severity.MINOR, description="Budget has no totals row", location="§3")
    same = Issue(severity=Severity.MEDIUM, description="budget has no totals row.", location="§3")
    elsewhere = Issue(
        severity=Severity.MINOR, description="Budget has no totals row", location="§4"
    )
    merged, count = merge_duplicates([first, same, elsewhere])
    assert count == 1
    assert [(i.severity, i.location) for i in merged] == [
        (Severity.MEDIUM, "§3"),
        (Severity.MINOR, "§4"),
    ]


@pytest.mark.parametrize("reason", ["n/a", "N/A - none", "ok fine", "fixed", "12 34 56"])
def test_a_dismissal_that_does_not_say_why_is_refused(reason: str) -> None:
    """A dismissal stands instead of a fix, so its reason is all the evidence there is."""
    with pytest.raises(ValidationError, match="a dismissal must say why in words"):
        Dismissal(id="F1", reason=reason)


@pytest.mark.parametrize("reason", ["Out of scope", "Duplicate of F2", "Section 4 caps it."])
def test_a_dismissal_in_three_words_says_why(reason: str) -> None:
    assert Dismissal(id="F1", reason=reason).reason == reason


def test_issues_whose_words_say_they_are_gone_are_not_issues() -> None:
    said = [
        "Resolved: the budget now stays under 15k.",
        "**Fixed** — the ceremony has a rain plan.",
        "Addressed - owners are named.",
        "Fixed-width font makes the table hard to read.",
        "The budget fix is not resolved yet.",
    ]
    standing, gone = still_standing([Issue(severity=Severity.MEDIUM, description=d) for d in said])
    assert gone == 3
    assert [issue.description for issue in standing] == said[3:]


def test_confirmations_are_optional_and_a_malformed_one_confirms_nothing() -> None:
    """A review without "resolved" reads as before; entries that are not an id with a quote are
    dropped, never making the review unusable."""
    assert parse_review('{"issues": []}', PlanReview).resolved == []
    answer = {
        "issues": [],
        "resolved": ["F1", {"id": "F2", "quote": "Ben holds the raffle money"}, {"quote": "x"}],
    }
    review = parse_review(json.dumps(answer), PlanReview)
    assert [(c.id, c.quote) for c in review.resolved] == [("F2", "Ben holds the raffle money")]
    assert parse_review('{"issues": [], "resolved": "all of them"}', PlanReview).resolved == []
