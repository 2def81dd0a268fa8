"""Labelled trajectories, written blind (the fourth round): plan-mode fixers that misbehave
as models do, each run through the polish flow on a real Prefect server.

Each expectation was written from the design spec (Phase 4: a fix returns the whole plan, the
OPA structure is fixed), issue 46 and ARCHITECTURE.md before the case was run: a careful human
reviewer's call. A fix that is not the plan is refused and the plan kept (two in a row:
`fix_output_invalid`), or its wrapping or chatter is stripped and the log says what. Run blind
against main, 20 of the 66 cases ended otherwise; each is fixed.
"""

from __future__ import annotations

import json

import pytest

from tests.flows.test_polish_trajectories import (
    EVERY_SECTION_FIXED,
    Run,
    halted,
    log,
    plan_commits,
    run,
    subjects,
)
from tests.polish_setup import PLAN, review
from thoughtforge.core.project import Project
from thoughtforge.core.state import read_status
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases.polish.finding_tracker import read_tracker
from thoughtforge.phases.polish.loop import PolishOutcome

# Whole flows and CLI processes, minutes in all: CI runs them in its slow suite.
pytestmark = pytest.mark.slow

__all__ = ["run"]  # the fixture, shared with the earlier rounds' trajectories

FIXED = EVERY_SECTION_FIXED
TWO_CRITICAL_ROUNDS: dict[int | str, str] = {
    1: review(1, 0, 0, "a"),
    2: review(1, 0, 0, "b"),
    "default": review(),
}
"""A critical finding in each of the first two reviews: two refused fixes in a row halt."""


ONE_CRITICAL_ROUND: dict[int | str, str] = {1: review(1, 0, 0, "a"), "default": review()}


def section(text: str, n: int) -> str:
    """Section n of a plan shaped like PLAN, from its heading to the next one."""
    start = text.index(f"## Section {n}")
    end = text.find("## Section", start + 1)
    return text[start:] if end < 0 else text[start:end]


def refused_and_kept(project: Project, outcome: PolishOutcome, names: tuple[str, ...]) -> None:
    """Two refused fixes in a row: the plan as it was, never committed changed, and the refusal
    naming what was wrong (one of `names`), in the commit and in the log."""
    halted(project, outcome, HaltReason.FIX_OUTPUT_INVALID, 2)
    assert (project.docs_dir / "plan.md").read_text() == PLAN
    assert plan_commits(project) == 1, "no commit ever changed the plan"
    said = subjects(project)
    assert said[1].startswith("fix #1: refused: "), said[1]
    assert any(name in said[1] for name in names), f"the refusal names none of {names}: {said[1]}"
    why = said[1].removeprefix("fix #1: refused: ").split(" — ")[0]
    assert why[:40] in log(project)


# --- 1. the template's structure changed ---------------------------------------------------------

RENAMED = FIXED.replace("## Section 3", "## Section 3: Venue and catering")
DEMOTED = FIXED.replace("## Section 4", "### Section 4")
REORDERED = FIXED.replace(section(FIXED, 2), "@@").replace(section(FIXED, 3), section(FIXED, 2))
REORDERED = REORDERED.replace("@@", section(FIXED, 3))
EXTRA_SECTION = FIXED + (
    "\n## Section 6\n\n| Objective | Plan | Assessment |\n| --- | --- | --- |\n"
    "| Thank-you notes | Send within a month | Every guest thanked |\n"
)
SECTION_TWICE = FIXED.replace(section(FIXED, 3), section(FIXED, 3) * 2)
ONLY_CHANGED = FIXED.replace(section(FIXED, 3), "")
CUT_AT_A_SECTION = FIXED[: FIXED.index("## Section 5")].rstrip() + "\n"
LOOK_ALIKE = FIXED.replace("## Section 3", "## Sect\u0456on 3")  # a Cyrillic i
ZERO_WIDTH = FIXED.replace("## Section 2", "## Section\u200b 2")
BODY_IN_A_CODE_BLOCK = FIXED.replace("## Section 1", "```\n## Section 1").rstrip("\n") + "\n```\n"
MARKED_UPDATED = FIXED.replace("## Section 2", "## Section 2 (updated)")
ALTERNATIVE_AFTER = (
    f"{FIXED}\nAlternatively, a shorter version:\n\n{section(FIXED, 1)}{section(FIXED, 2)}"
)
CUT_IN_AN_OPEN_FENCE = "```markdown\n" + FIXED[: FIXED.rindex("| Check 5")]
ESCAPED_NEWLINES = FIXED.replace("\n", "\\n") + "\n"
TITLE_DROPPED = FIXED.replace("# Wedding plan\n\n", "")
TRANSLATED = (
    FIXED.replace("# Wedding plan", "# Plan de mariage")
    .replace("## Section", "## Partie")
    .replace("| Objective | Plan | Assessment |", "| Objectif | Plan | Évaluation |")
    .replace("Book item", "Réserver l'élément")
    .replace("by May", "avant mai")
    .replace("Goal", "But")
    .replace("Check", "Vérifier")
)


@pytest.mark.parametrize(
    ("answer", "names"),
    [
        (RENAMED, ("Section 3",)),
        (DEMOTED, ("Section 4",)),
        (REORDERED, ("Section 2", "Section 3")),
        (EXTRA_SECTION, ("Section 6",)),
        (SECTION_TWICE, ("Section 3",)),
        (ONLY_CHANGED, ("Section 3",)),
        (CUT_AT_A_SECTION, ("Section 5",)),
        (LOOK_ALIKE, ("Section 3", "Sect\u0456on 3")),
        (ZERO_WIDTH, ("Section 2",)),
        (TITLE_DROPPED, ("Wedding plan",)),
        (BODY_IN_A_CODE_BLOCK, ("Section 1",)),
        (MARKED_UPDATED, ("Section 2",)),
        (ALTERNATIVE_AFTER, ("Section 1", "Section 2", "Alternatively")),
        (ESCAPED_NEWLINES, ("Section 1",)),
        (CUT_IN_AN_OPEN_FENCE, ("Section 5", "cut off")),
        (TRANSLATED, ("Wedding plan", "Section 1", "Plan de mariage", "Partie 1")),
    ],
    ids=[
        "heading-renamed",
        "heading-demoted",
        "sections-reordered",
        "section-added",
        "section-twice",
        "section-dropped",
        "cut-at-a-section-boundary",
        "look-alike-heading",
        "zero-width-in-heading",
        "title-dropped",
        "body-in-a-code-block",
        "heading-marked-updated",
        "alternative-version-after",
        "escaped-newlines",
        "cut-off-in-an-open-fence",
        "translated",
    ],
)
def test_a_fix_that_changes_the_templates_sections_is_refused(
    run: Run, answer: str, names: tuple[str, ...]
) -> None:
    """A careful reviewer refuses a plan whose OPA headings are not the template's, in its
    order, each once (the AI fills the tables but cannot alter the structure); the plan kept."""
    assert answer != FIXED and len(answer) > len(PLAN) / 2, "the 50 % rule alone does not catch it"
    project, outcome = run(TWO_CRITICAL_ROUNDS, {"text": answer})
    refused_and_kept(project, outcome, names)


def table(n: int) -> str:
    """The OPA table of section n of FIXED."""
    return (
        "| Objective | Plan | Assessment |\n| --- | --- | --- |\n"
        f"| Goal {n} | Book item {n} by May | Check {n} |"
    )


# --- 2. a table changed --------------------------------------------------------------------------

COLUMNS_SWAPPED = FIXED.replace(
    "| Objective | Plan | Assessment |\n| --- | --- | --- |\n| Goal 2 | Book item 2 by May |",
    "| Plan | Objective | Assessment |\n| --- | --- | --- |\n| Book item 2 by May | Goal 2 |",
)
HEADER_REWORDED = FIXED.replace(
    "| Objective | Plan | Assessment |\n| --- | --- | --- |\n| Goal 4",
    "| Objective | Plan | Evaluation |\n| --- | --- | --- |\n| Goal 4",
)
COLUMN_ADDED = FIXED.replace(
    table(5),
    "| Objective | Plan | Assessment | Owner |\n| --- | --- | --- | --- |\n"
    "| Goal 5 | Book item 5 by May | Check 5 | Sam |",
)
CELL_MISSING = FIXED.replace(
    "| Goal 3 | Book item 3 by May | Check 3 |", "| Goal 3 | Book item 3 by May |"
)
ROW_TWICE = FIXED.replace(
    "| Goal 1 | Book item 1 by May | Check 1 |\n",
    "| Goal 1 | Book item 1 by May | Check 1 |\n| Goal 1 | Book item 1 by May | Check 1 |\n",
)
TABLE_IN_A_CODE_BLOCK = FIXED.replace(
    table(2),
    "```text\n| Objective | Plan | Assessment |\n| --- | --- | --- |\n"
    "| Goal 2 | Book item 2 by May | Check 2 |\n```",
)
ROW_DROPPED = FIXED.replace("| Goal 1 | Book item 1 by May | Check 1 |\n", "")
HTML_TABLE = FIXED.replace(
    table(4),
    "<table>\n<tr><th>Objective</th><th>Plan</th><th>Assessment</th></tr>\n"
    "<tr><td>Goal 4</td><td>Book item 4 by May</td><td>Check 4</td></tr>\n</table>",
)


@pytest.mark.parametrize(
    ("answer", "names"),
    [
        (COLUMNS_SWAPPED, ("Section 2",)),
        (HEADER_REWORDED, ("Section 4", "Evaluation")),
        (COLUMN_ADDED, ("Section 5", "Owner")),
        (CELL_MISSING, ("Section 3",)),
        (ROW_TWICE, ("Section 1", "Goal 1")),
        (TABLE_IN_A_CODE_BLOCK, ("Section 2",)),
        (HTML_TABLE, ("Section 4",)),
        (ROW_DROPPED, ("Section 1",)),
    ],
    ids=[
        "columns-swapped",
        "header-reworded",
        "column-added",
        "cell-missing",
        "row-twice",
        "table-in-a-code-block",
        "html-table",
        "only-row-dropped",
    ],
)
def test_a_fix_that_changes_an_opa_table_is_refused(
    run: Run, answer: str, names: tuple[str, ...]
) -> None:
    """A careful reviewer refuses an OPA table whose header row, column count or rows are not the
    template's (a row repeated verbatim is a glitch, a table in a code block or in HTML is no
    Markdown table); the plan kept."""
    assert answer != FIXED
    project, outcome = run(TWO_CRITICAL_ROUNDS, {"text": answer})
    refused_and_kept(project, outcome, names)


# --- 3. a cell that says nothing -----------------------------------------------------------------


@pytest.mark.parametrize(
    "placeholder",
    [
        "N/A",
        "TODO",
        "???",
        "[placeholder]",
        "Lorem ipsum dolor sit amet",
        "-",
        "see above",
        "...",
    ],
)
def test_a_fix_with_a_placeholder_cell_is_refused(run: Run, placeholder: str) -> None:
    """Phase 3 refuses empty and placeholder cells; a fix that puts one in an Assessment cell is
    refused the same way, the placeholder named."""
    answer = FIXED.replace("| Check 3 |", f"| {placeholder} |")
    project, outcome = run(TWO_CRITICAL_ROUNDS, {"text": answer})
    refused_and_kept(project, outcome, (f"'{placeholder}'", "Section 3"))


# --- 4. wrappers: unwrapped, stripped or refused, never in plan.md -------------------------------

FENCE_BODY = FIXED.rstrip("\n")


@pytest.mark.parametrize(
    "answer",
    [
        f"```text\n{FENCE_BODY}\n```\n",
        f"~~~\n{FENCE_BODY}\n~~~\n",
        f"~~~markdown\n{FENCE_BODY}\n~~~\n",
        f"```md\n{FENCE_BODY}\n```\n",
        f"````markdown\n{FENCE_BODY}\n````\n",
    ],
    ids=["text-fence", "tilde-fence", "tilde-markdown-fence", "md-fence", "four-backtick-fence"],
)
def test_a_plan_in_a_fence_of_another_kind_is_unwrapped_like_a_markdown_fence(
    run: Run, answer: str
) -> None:
    """A ```markdown fence is unwrapped; a careful reviewer sees the same whole plan in a ```text,
    ~~~ or four-backtick fence and accepts it the same way: done, plan.md the plan alone."""
    project, outcome = run(ONE_CRITICAL_ROUND, {"text": answer})
    assert (outcome.verdict, outcome.iteration) == ("done", 2), outcome.reason
    assert (project.docs_dir / "plan.md").read_text() == FIXED
    assert subjects(project)[1].startswith("fix #1: docs/plan.md updated ("), subjects(project)[1]


@pytest.mark.parametrize(
    "answer",
    [
        json.dumps({"plan": FIXED}),
        json.dumps({"revised_plan": FIXED, "changes": ["Every item is booked by May."]}),
        f"<html>\n<body>\n{FIXED}</body>\n</html>\n",
        f'<div class="plan">\n\n{FIXED}\n</div>\n',
        f"```markdown\n```markdown\n{FENCE_BODY}\n```\n```\n",
        f"{FIXED}\n```json\n{review(1, 0, 0, 'a')}\n```\n",
        FIXED.replace(
            "## Section 2\n",
            "## Section 2\n\n<!-- Updated: every item now has a May deadline -->\n",
        ),
        f"{FIXED}\n## Summary of changes\n\n- Every item is booked by May.\n",
        FIXED.replace("Book item 1 by May", "Book item 1 by May (fixes F1)"),
        FIXED.replace("Book item 2 by May", "~~Steps for 2~~ Book item 2 by May"),
    ],
    ids=[
        "json-string",
        "json-with-changes",
        "html-page",
        "html-div",
        "fence-in-a-fence",
        "review-echoed-after",
        "html-comment-inside",
        "changes-heading-after",
        "finding-ids-in-cells",
        "strikethrough-edits",
    ],
)
def test_a_plan_wrapped_in_json_html_or_fences_never_reaches_plan_md_wrapped(
    run: Run, answer: str
) -> None:
    """A careful reviewer either takes the whole plan out of its wrapping (the log says so) or
    refuses the fix and keeps the plan; plan.md never holds JSON, HTML, a fence line, a comment
    to the reader, a changelog, the tracker's ids or edit marks."""
    project, outcome = run(ONE_CRITICAL_ROUND, {"text": answer})
    plan = (project.docs_dir / "plan.md").read_text()
    assert plan in (FIXED, PLAN), f"plan.md holds the wrapping: {plan[:80]!r}"
    if plan == FIXED:
        assert (outcome.verdict, outcome.iteration) == ("done", 2), outcome.reason
        said = subjects(project)[1]
        assert said.startswith("fix #1: docs/plan.md updated (") and "stripped" in said, said
        assert "stripped" in log(project)
    else:
        assert outcome.verdict == "halt", "a critical found, its fix refused: never done"
        assert plan_commits(project) == 1
        assert subjects(project)[1].startswith("fix #1: refused: ")


# --- 5. chatter around an unfenced plan: stripped, and the log says what -------------------------


@pytest.mark.parametrize(
    ("answer", "quoted"),
    [
        (f"{FIXED}\nLet me know if you want more changes!\n", "Let me know"),
        (f"{FIXED}\nNote: I assumed the budget is in euros and kept every date in May.\n", "Note:"),
        (f"{FIXED}\n---\n\n*I hope this helps!*\n", "I hope this helps"),
        (f"Sure! Below is the updated plan, with every item booked by May.\n\n{FIXED}", "Sure!"),
        (f"**Revised plan**\n\n{FIXED}", "Revised plan"),
        (f"Plan:\n\n{FIXED}", "Plan:"),
    ],
    ids=[
        "closing-line",
        "note-paragraph",
        "rule-then-sign-off",
        "sure-preamble",
        "bold-label",
        "prompt-label",
    ],
)
def test_chatter_around_an_unfenced_plan_is_stripped_and_named(
    run: Run, answer: str, quoted: str
) -> None:
    """Text to the reader outside the document is stripped, and the commit and the log quote it:
    done with plan.md the plan alone."""
    project, outcome = run(ONE_CRITICAL_ROUND, {"text": answer})
    assert (outcome.verdict, outcome.iteration) == ("done", 2), outcome.reason
    assert (project.docs_dir / "plan.md").read_text() == FIXED
    said = subjects(project)[1]
    assert "stripped" in said and quoted in said, said
    assert quoted in log(project)


# --- 6. the template's tables written otherwise, or fuller: accepted ---------------------------

PADDED = (
    FIXED.replace(
        "| Objective | Plan | Assessment |", "| Objective | Plan               | Assessment |"
    )
    .replace("| --- | --- | --- |", "|-----------|--------------------|------------|")
    .replace("| Check ", "| Check    ")
)
ALIGNED = FIXED.replace("| --- | --- | --- |", "| :--- | :---: | ---: |")
ROW_ADDED = FIXED.replace(
    "| Goal 2 | Book item 2 by May | Check 2 |\n",
    "| Goal 2 | Book item 2 by May | Check 2 |\n"
    "| Rain cover | Hire a tent by April | Tent booked |\n",
)
ESCAPED_PIPE = FIXED.replace("Book item 3 by May", "Book item 3 by May \\| June at the latest")
LINE_BREAK = FIXED.replace("Book item 4 by May", "Book item 4 by May<br>Pay the deposit")


@pytest.mark.parametrize(
    "answer",
    [PADDED, ALIGNED, ROW_ADDED, ESCAPED_PIPE, LINE_BREAK],
    ids=["padded-cells", "alignment-colons", "row-added", "escaped-pipe", "br-in-a-cell"],
)
def test_a_plan_with_the_templates_tables_written_otherwise_or_fuller_is_accepted(
    run: Run, answer: str
) -> None:
    """Pretty-printed tables (padded cells, a longer delimiter row), alignment colons, a new
    objective row, an escaped pipe or a <br> in a cell keep the template's OPA tables: a careful
    reviewer accepts the fix as the fixer wrote it, and the run ends."""
    project, outcome = run(ONE_CRITICAL_ROUND, {"text": answer})
    assert (outcome.verdict, outcome.iteration) == ("done", 2), outcome.reason
    assert (project.docs_dir / "plan.md").read_text() == answer
    assert subjects(project)[1].startswith("fix #1: docs/plan.md updated ("), subjects(project)[1]


# --- 7. encodings --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        FIXED.replace("\n", "\r\n"),
        "\ufeff" + FIXED,
        "\ufeff" + FIXED.replace("\n", "\r\n"),
    ],
    ids=["crlf", "bom", "bom-and-crlf"],
)
def test_a_plan_with_windows_line_endings_or_a_bom_is_the_same_plan(run: Run, answer: str) -> None:
    """The same whole plan with CRLF line endings or a byte-order mark is accepted, and plan.md
    keeps the document's own encoding (LF, no BOM): no line of it reads as changed."""
    project, outcome = run(ONE_CRITICAL_ROUND, {"text": answer})
    assert (outcome.verdict, outcome.iteration) == ("done", 2), outcome.reason
    assert (project.docs_dir / "plan.md").read_bytes() == FIXED.encode()


# --- 8. trajectories: a refusal between good fixes, a good fix undone ----------------------------


def test_a_refused_fix_then_a_good_one_goes_on_and_reaches_done(run: Run) -> None:
    """Only two refusals in a row halt: a TODO fix refused, then a whole fix accepted, then a clean
    review shown the finding → done at iteration 3, the finding resolved by fix #2."""
    fix = {
        "by_iteration": {
            1: {"text": FIXED.replace("| Check 2 |", "| TODO |")},
            "default": {"text": FIXED},
        }
    }
    reviews: dict[int | str, str] = {1: review(1, 0, 0, "a"), 2: review(1, 0, 0, "a")}
    reviews["default"] = review()
    project, outcome = run(reviews, fix)
    assert (outcome.verdict, outcome.iteration) == ("done", 3), outcome.reason
    assert (project.docs_dir / "plan.md").read_text() == FIXED
    said = subjects(project)
    assert said[1].startswith("fix #1: refused: ") and "TODO" in said[1]
    assert said[3].startswith("fix #2: docs/plan.md updated (")
    tracker = read_tracker(project.dir)
    assert [(f.id, f.status) for f in tracker.findings] == [("F1", "resolved")]


def test_a_fix_that_undoes_the_fix_of_a_critical_then_a_clean_review_is_no_done(run: Run) -> None:
    """Fix #1 resolves a critical in Section 1; fix #2, asked about a critical in Section 5, fixes
    it but puts Section 1 back as polishing began (the first critical's text back); the reviews
    after are clean. A careful reviewer does not call that done: Section 1 is byte for byte the
    text review #1 found a critical in, and nothing since has looked at it and said why not."""
    budget = {
        "severity": "critical",
        "description": "The budget exceeds the 15k limit.",
        "location": "Section 1",
    }
    parking = {
        "severity": "critical",
        "description": "The parking plan leaves 40 guests without a space.",
        "location": "Section 5",
    }
    reviews: dict[int | str, str] = {
        1: json.dumps({"issues": [budget]}),
        2: json.dumps({"issues": [parking]}),
        "default": review(),
    }
    good = PLAN.replace("Steps for 1", "Cap spend at 14k")
    undone = PLAN.replace("Steps for 5", "Reserve 60 parking spaces")
    fix = {"by_iteration": {1: {"text": good}, "default": {"text": undone}}}
    project, outcome = run(reviews, fix, max_iterations=6)
    assert outcome.verdict == "halt", outcome.reason
    assert outcome.halt_reason in (HaltReason.GUARD_ISSUES_PERSIST, HaltReason.GUARD_FIX_CIRCULAR)
    assert read_status(project.dir).phase is Phase.HALTED
    assert "F1" in outcome.reason, "the halt names the critical the undo brought back"
    said = subjects(project)
    assert said[3].startswith("fix #2: docs/plan.md"), said[3]
    f1 = read_tracker(project.dir).findings[0]
    assert f1.status != "resolved", "its fix was undone"


def test_a_fixer_that_writes_plan_md_itself_and_answers_a_sentence_changes_nothing(
    run: Run,
) -> None:
    """A plan-mode fixer returns the plan; one that writes docs/plan.md itself (as a coding agent
    would) and answers "I've updated docs/plan.md" gave no plan: a careful reviewer refuses it
    (or halts the plan-mode breach), and the plan stays as it was, never committed changed."""
    fix = {
        "text": "I've updated docs/plan.md with every fix from the issue list.",
        "write": {"docs/plan.md": FIXED},
    }
    project, outcome = run(TWO_CRITICAL_ROUNDS, fix)
    assert outcome.verdict == "halt", outcome.reason
    assert outcome.halt_reason in (HaltReason.FIX_OUTPUT_INVALID, HaltReason.PLAN_MODE_VIOLATION)
    assert read_status(project.dir).phase is Phase.HALTED
    assert (project.docs_dir / "plan.md").read_text() == PLAN
    assert plan_commits(project) == 1, "no commit ever changed the plan"


# --- 9. fixes that change only whitespace --------------------------------------------------------


def test_a_fixer_that_changes_only_blank_lines_is_an_idle_fixer(run: Run) -> None:
    """Each fix adds blank lines at the end or between sections, nothing else: a careful reviewer
    sees the same plan returned, as with a byte-identical one (halt at the second), and never
    commits it as 'updated'."""
    fix = {
        "by_iteration": {
            n: {"text": PLAN.replace("\n\n## Section", "\n" * (n + 2) + "## Section") + "\n" * n}
            for n in range(1, 9)
        }
    }
    project, outcome = run({"default": review(1, 1, 0)}, fix, max_iterations=8)
    halted(project, outcome, HaltReason.GUARD_FIX_UNCHANGED, 2)
    said = subjects(project)
    assert said[1].startswith("fix #1: unchanged"), said[1]
    assert "updated" not in log(project)


def test_whitespace_in_a_findings_section_does_not_address_it(run: Run) -> None:
    """A critical in Section 2; the fix only doubles a space in Section 2's row; the next review is
    clean. A careful reviewer: nothing changed where the finding was, so the clean review is
    confirmed like one of an unchanged plan, and two that stay silent do not make it done."""
    critical = {
        "severity": "critical",
        "description": "No caterer is booked for the dinner.",
        "location": "Section 2",
    }
    reviews: dict[int | str, str] = {1: json.dumps({"issues": [critical]}), "default": review()}
    spaced = PLAN.replace("| Goal 2 | Steps for 2 |", "| Goal 2 |  Steps  for 2 |")
    project, outcome = run(reviews, {"text": spaced}, max_iterations=6)
    assert outcome.verdict == "halt", outcome.reason
    assert outcome.halt_reason in (HaltReason.GUARD_ISSUES_PERSIST, HaltReason.GUARD_FIX_UNCHANGED)
    assert "F1" in outcome.reason or "unchanged" in outcome.reason
    [f1] = read_tracker(project.dir).findings
    assert (f1.status, f1.addressed_by) == ("open", []), "whitespace addressed nothing"
