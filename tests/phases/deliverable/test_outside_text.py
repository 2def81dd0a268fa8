"""What lies around a document, case by case: stripped whole and named, or the answer refused;
never half a wrapper left in the deliverable."""

from __future__ import annotations

import pytest

from tests.polish_setup import PLAN
from thoughtforge.phases.deliverable.outside_text import separate

FIXED = PLAN.replace("Steps for 2", "Book the caterer by April")
BODY = FIXED.strip()


@pytest.mark.parametrize(
    "answer",
    [
        "\ufeff" + FIXED,
        "\ufeff" + FIXED.replace("\n", "\r\n"),
        "```markdown\n\ufeff" + FIXED + "```",
    ],
    ids=["bom", "bom-and-crlf", "bom-inside-a-fence"],
)
def test_a_byte_order_mark_is_no_part_of_the_document(answer: str) -> None:
    found = separate(answer, PLAN)
    assert (found.document, found.refused) == (BODY, None)


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (f"<html>\n<body>\n{FIXED}</body>\n</html>\n", "the HTML around it ('<html>' … '</html>')"),
        (f'<div class="plan">\n\n{FIXED}\n</div>\n', "('<div class=\"plan\">' … '</div>')"),
        (f"<html><body>\n{FIXED}\n</body></html>", "('<html><body>' … '</body></html>')"),
    ],
    ids=["html-page", "div", "tags-on-one-line"],
)
def test_html_around_the_document_is_stripped_at_both_ends(answer: str, said: str) -> None:
    found = separate(answer, PLAN)
    assert (found.document, found.refused) == (BODY, None)
    assert any(said in what for what in found.stripped), found.stripped


@pytest.mark.parametrize(
    "answer",
    [f"<div>\n\n{FIXED}", f"{FIXED}\n</div>\n", f"<html>\n<body>\n{FIXED}\n</html>\n"],
    ids=["opened-only", "closed-only", "closed-out-of-order"],
)
def test_html_tags_at_one_end_only_refuse_the_answer(answer: str) -> None:
    found = separate(answer, PLAN)
    assert found.refused is not None and "HTML tags" in found.refused


def test_a_fence_inside_a_fence_is_unwrapped_whole() -> None:
    found = separate(f"```markdown\n```markdown\n{BODY}\n```\n```\n", PLAN)
    assert (found.document, found.refused) == (BODY, None)
    assert found.stripped == ["a fence inside its fence ('```markdown')"]


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (f"{FIXED}\n---\n\n*I hope this helps!*\n", "'*I hope this helps!*'"),
        (f"{FIXED}\n***\n\nChanges made:\n- the caterer\n", "'Changes made:'"),
    ],
    ids=["rule-then-sign-off", "rule-then-changelog"],
)
def test_the_rule_that_led_into_an_afterword_goes_with_it(answer: str, said: str) -> None:
    found = separate(answer, PLAN)
    assert found.document == BODY
    assert any(said in what for what in found.stripped), found.stripped


def test_a_rule_the_document_ends_with_is_kept_when_nothing_is_stripped() -> None:
    ruled = PLAN + "\n---\n"
    assert separate(ruled, ruled).document == ruled.strip()


@pytest.mark.parametrize(
    "note",
    [
        "Note: I assumed the budget is in euros.",
        "**Notes:** I kept every date in May.",
        "N.B. I've left the venue as it was.",
    ],
)
def test_a_note_in_the_first_person_after_the_document_is_stripped(note: str) -> None:
    found = separate(f"{FIXED}\n{note}\n", PLAN)
    assert found.document == BODY
    assert any(note[:20] in what for what in found.stripped), found.stripped


def test_a_first_person_note_inside_the_document_refuses_the_answer() -> None:
    answer = FIXED.replace("## Section 3", "Note: I assumed euros.\n\n## Section 3")
    found = separate(answer, PLAN)
    assert found.refused is not None and "Note: I assumed euros." in found.refused


def test_a_note_of_the_plan_itself_is_kept() -> None:
    answer = f"{FIXED}\nNote: the venue needs a deposit by March.\n"
    found = separate(answer, PLAN)
    assert (found.document, found.stripped) == (answer.strip(), [])


def test_a_fenced_block_after_the_last_table_is_stripped() -> None:
    answer = f'{FIXED}\n```json\n{{"issues": []}}\n```\n'
    found = separate(answer, PLAN)
    assert found.document == BODY
    assert found.stripped == ["a fenced block after the document ('```json')"]


def test_a_fenced_block_the_previous_version_had_is_the_documents_own() -> None:
    with_block = PLAN + "\n```text\nsetlist.txt\n```\n"
    answer = with_block.replace("Steps for 2", "Book the caterer")
    assert separate(answer, with_block).document == answer.strip()


def test_a_whole_line_comment_is_stripped_with_its_blank_line() -> None:
    answer = FIXED.replace("## Section 2\n", "## Section 2\n\n<!-- Updated: the caterer -->\n")
    found = separate(answer, PLAN)
    assert found.document == BODY
    assert found.stripped == ["a comment to the reader ('<!-- Updated: the caterer -->')"]


def test_a_comment_over_several_lines_is_stripped() -> None:
    answer = FIXED.replace("## Section 2\n", "## Section 2\n\n<!-- Updated:\nthe caterer -->\n")
    assert separate(answer, PLAN).document == BODY


def test_a_comment_inside_a_line_refuses_the_answer() -> None:
    answer = FIXED.replace("Book the caterer", "Book the caterer <!-- fixed -->")
    found = separate(answer, PLAN)
    assert found.refused is not None and "comment to the reader" in found.refused


def test_a_comment_the_previous_version_had_is_kept() -> None:
    with_comment = PLAN.replace("## Section 2\n", "## Section 2\n<!-- keep -->\n")
    answer = with_comment.replace("Steps for 2", "Book the caterer")
    assert separate(answer, with_comment).document == answer.strip()


def test_blank_lines_away_from_a_stripped_comment_are_kept() -> None:
    spaced = FIXED.replace("\n\n## Section 4", "\n\n\n\n## Section 4")
    answer = spaced.replace("## Section 2\n", "## Section 2\n\n<!-- Updated -->\n")
    assert separate(answer, PLAN).document == spaced.strip()


@pytest.mark.parametrize(
    ("edited", "mark"),
    [
        ("Book the caterer by April (fixes F1)", "(fixes F1)"),
        ("Book the caterer by April [addresses findings F1, F3]", "[addresses findings F1, F3]"),
        ("Book the caterer by April (finding 2)", "(finding 2)"),
        ("~~Steps for 2~~ Book the caterer by April", "~~Steps for 2~~"),
    ],
    ids=["fixes-id", "addresses-ids", "finding-number", "struck-through"],
)
def test_a_mark_of_the_edit_in_a_new_line_refuses_the_answer(edited: str, mark: str) -> None:
    found = separate(FIXED.replace("Book the caterer by April", edited), PLAN)
    assert found.refused is not None and f"marks its edits inside the document ('{mark}')" in (
        found.refused
    )


@pytest.mark.parametrize(
    "edited",
    ["Book the F1 paddock (per 100 guests)", "Print it in issue 2 (issue 2)", "Room (F2)"],
)
def test_numbers_in_brackets_that_name_no_finding_are_content(edited: str) -> None:
    found = separate(FIXED.replace("Book the caterer by April", edited), PLAN)
    assert found.refused is None


def test_a_struck_through_line_the_previous_version_had_is_kept() -> None:
    struck = PLAN.replace("Steps for 1", "~~Steps for 1~~ Done")
    answer = struck.replace("Steps for 2", "Book the caterer")
    assert separate(answer, struck).refused is None


def test_a_note_in_the_persons_own_voice_is_the_plans() -> None:
    answer = f"{FIXED}\nNote: my sister brings the flowers, and I prefer June.\n"
    found = separate(answer, PLAN)
    assert (found.document, found.stripped) == (answer.strip(), [])
