from __future__ import annotations

import json
import os
import re
from functools import cache
from pathlib import Path

import pytest

from thoughtforge.plugins.plan.builder_response import (
    BuilderResponseError,
    PlanBuilderResponse,
    check_slots,
    parse_builder_response,
)
from thoughtforge.plugins.plan.slot_content import unfilled_reason
from thoughtforge.plugins.plan.template import (
    PlanTemplate,
    PlanTemplateError,
    SlotKind,
    load_template,
)
from thoughtforge.plugins.plan.template_selection import (
    TEMPLATES_DIR,
    NoPlanTemplatesError,
    select_template,
)
from thoughtforge.prompting.markdown_escaping import (
    escape_cell,
    escape_inline,
    escape_paragraph,
    unescape_cell,
    unescape_paragraph,
)

GOLDEN = Path(__file__).parent / "golden" / "plan_templates"
TEMPLATE_NAMES = sorted(path.stem for path in TEMPLATES_DIR.glob("*.hbs"))
OPA_HEADER = ["Objective", "Plan", "Assessment"]
NASTY = [
    "a | b",
    "pipe after backslash \\| here",
    "two backslashes \\\\| here",
    "ends with a backslash\\",
    "line one\nline two",
    "crlf\r\nand cr\rboth",
    "{{x}} and {{{raw}}} stay",
    "<b>bold</b> & \"quotes\" 'too' `tick`",
    "| leading pipe and trailing |",
    "# not a heading\n- not a list\n---",
    "form\x0cfeed and line\u2028separator stay inside the cell",
]


@cache
def _template(name: str) -> PlanTemplate:
    return load_template(TEMPLATES_DIR / f"{name}.hbs")


def _fixture(name: str) -> dict[str, object]:
    return json.loads((GOLDEN / f"{name}.slots.json").read_text(encoding="utf-8"))


def _fixture_slots(name: str) -> dict[str, str]:
    slots = _fixture(name)["slots"]
    assert isinstance(slots, dict)
    return slots


def _render_fixture(name: str) -> str:
    return _template(name).render(str(_fixture(name)["project_name"]), _fixture_slots(name))


def _as_read_back(text: str) -> str:
    """What reading a slot back yields: line endings become \\n, outer whitespace is dropped."""
    return re.sub(r"\r\n?", "\n", text).strip()


def _cells(row: str) -> list[str]:
    """A GFM table row split on unescaped pipes: a backslash escapes the character after it."""
    cells: list[str] = []
    current: list[str] = []
    chars = iter(row.strip())
    for char in chars:
        if char == "\\":
            current += [char, next(chars, "")]
        elif char == "|":
            cells.append("".join(current))
            current = []
        else:
            current.append(char)
    cells.append("".join(current))
    assert cells[0] == "" and cells[-1] == "", f"row must start and end with a pipe: {row!r}"
    return [cell.strip() for cell in cells[1:-1]]


def _tables(markdown: str) -> list[list[list[str]]]:
    tables: list[list[list[str]]] = []
    in_table = False
    for line in markdown.split("\n"):
        is_row = line.startswith("|")
        if is_row and not in_table:
            tables.append([])
        if is_row:
            tables[-1].append(_cells(line))
        in_table = is_row
    return tables


# --- the built-in templates ----------------------------------------------------------------------


def test_builtin_templates_cover_generic_and_typed_plans() -> None:
    assert {"generic", "engineering", "strategy", "event"} <= set(TEMPLATE_NAMES)


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_fixture_fills_exactly_the_template_slots(name: str) -> None:
    """Every template needs a realistic fixture, so a new template cannot skip the golden test."""
    assert sorted(_fixture_slots(name)) == sorted(_template(name).slot_ids)


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_rendered_plan_matches_golden_file(name: str) -> None:
    """The golden files show reviewers a filled plan; UPDATE_GOLDEN=1 rewrites them."""
    rendered = _render_fixture(name)
    golden = GOLDEN / f"{name}.md"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(rendered, encoding="utf-8")
    assert rendered == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_every_major_section_has_one_well_formed_opa_table(name: str) -> None:
    template = _template(name)
    rendered = _render_fixture(name)
    table_sections = [s for s in template.sections() if s.slots[0].kind is SlotKind.CELL]
    tables = _tables(rendered)
    assert len(tables) == len(table_sections) >= 5
    for table, section in zip(tables, table_sections, strict=True):
        header, delimiter, *rows = table
        assert header == OPA_HEADER
        assert all(re.fullmatch(r":?-{3,}:?", cell) for cell in delimiter)
        assert len(rows) == 1 and all(len(row) == len(header) for row in table)
        assert [slot.id.rsplit(".", 1)[1] for slot in section.slots] == [
            "objective",
            "plan",
            "assessment",
        ]


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_title_line_carries_the_project_name(name: str) -> None:
    title = _template(name).render("R&D | <Skunkworks>\nNorth", {}).split("\n", 1)[0]
    assert re.fullmatch(r"# R&D \\\| <Skunkworks> North — (\w+ )?Plan", title)


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_nasty_ai_text_cannot_break_any_table(name: str) -> None:
    template = _template(name)
    filled = {slot_id: NASTY[i % len(NASTY)] for i, slot_id in enumerate(template.slot_ids)}
    rendered = template.render("Project | X", filled)
    assert len(_tables(rendered)) == len(template.sections()) - 1
    assert not re.search(r"^#+ not a heading", rendered, flags=re.MULTILINE)
    assert template.read_filled(rendered) == {k: _as_read_back(v) for k, v in filled.items()}


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_full_plan_reads_back_as_the_slots_that_filled_it(name: str) -> None:
    expected = {k: _as_read_back(v) for k, v in _fixture_slots(name).items()}
    assert _template(name).read_filled(_render_fixture(name)) == expected


def test_ai_text_is_neither_html_escaped_nor_expanded() -> None:
    rendered = _render_fixture("engineering")
    assert "{{invoice_id}}" in rendered
    assert "an alert <b>only</b> when the dead-letter table is non-empty & older" in rendered
    assert "&amp;" not in rendered and "&lt;" not in rendered and "&quot;" not in rendered


# --- escaping ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "cell"),
    [
        ("a | b", "a \\| b"),
        ("one\r\ntwo\rthree\nfour", "one<br>two<br>three<br>four"),
        ('{{x}} <b>&</b> "q"', '{{x}} <b>&</b> "q"'),
        ("already \\| escaped", "already \\\\\\| escaped"),
        ("trailing\\", "trailing\\\\"),
        ("line end\\\nnext", "line end\\\\<br>next"),
        ("inner \\ backslash", "inner \\ backslash"),
        ("  padded\n\n", "padded"),
    ],
)
def test_cell_escaping(text: str, cell: str) -> None:
    assert escape_cell(text) == cell


def test_paragraph_escaping_keeps_pipes_and_joins_lines() -> None:
    assert escape_paragraph("a | b\r\nc\\") == "a | b<br>c\\\\"


def test_inline_escaping_puts_the_project_name_on_one_safe_line() -> None:
    assert escape_inline("  Bob's | R&D\n\tplan ") == "Bob's \\| R&D plan"


@pytest.mark.parametrize("text", NASTY)
def test_unescaping_inverts_escaping(text: str) -> None:
    assert unescape_cell(escape_cell(text)) == _as_read_back(text)
    assert unescape_paragraph(escape_paragraph(text)) == _as_read_back(text)


# --- slots found in the template -----------------------------------------------------------------

TABLE = "| Objective | Plan | Assessment |\n| --- | --- | --- |\n"
SMALL = (
    "{{!-- matches: tiny --}}\n"
    "# {{project_name}} plan\n\n"
    "## Alpha\n\n"
    '**Lead:** {{paragraph "alpha.lead"}}\n\n'
    + TABLE
    + '| {{cell "alpha.objective"}} | {{cell "alpha.plan"}} | {{cell "alpha.assessment"}} |\n\n'
    "### Alpha detail\n\n"
    + TABLE
    + '| {{cell "detail.objective"}} | {{cell "detail.plan"}} | {{cell "detail.assessment"}} |\n\n'
    "## Beta ##\n\n"
    + TABLE
    + '| {{cell "beta.objective"}} | {{cell "beta.plan"}} | {{cell "beta.assessment"}} |\n'
)


def test_slots_come_in_document_order_with_their_headings() -> None:
    template = PlanTemplate("small", SMALL)
    assert template.slot_ids == [
        "alpha.lead",
        "alpha.objective",
        "alpha.plan",
        "alpha.assessment",
        "detail.objective",
        "detail.plan",
        "detail.assessment",
        "beta.objective",
        "beta.plan",
        "beta.assessment",
    ]
    assert [(s.heading, [slot.id for slot in s.slots]) for s in template.sections()] == [
        ("Alpha", ["alpha.lead", "alpha.objective", "alpha.plan", "alpha.assessment"]),
        ("Alpha detail", ["detail.objective", "detail.plan", "detail.assessment"]),
        ("Beta", ["beta.objective", "beta.plan", "beta.assessment"]),
    ]
    assert template.slots[0].kind is SlotKind.PARAGRAPH
    assert {slot.kind for slot in template.slots[1:]} == {SlotKind.CELL}


def test_builtin_engineering_sections() -> None:
    assert [s.heading for s in _template("engineering").sections()] == [
        "Summary",
        "Context & Goals",
        "Architecture",
        "Milestones",
        "Risks",
        "Testing & Rollout",
        "Operations",
    ]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            '## A\n| {{cell "a.x"}} | {{cell "b.y"}} |\n## B\n| {{cell "a.x"}} |\n',
            "slot id used more than once: a.x",
        ),
        ('## A\n{{cell "a.x"}}\n', "slot 'a.x' must be inside a Markdown table row"),
        ('## Title {{cell "a.x"}}\n', "slot 'a.x' must be inside a Markdown table row"),
        ('# T\n| {{cell "a.x"}} |\n## A\n', "slot 'a.x' is not under a section heading"),
        ('## A\n{{paragraph "a.p"}}\n', "slot 'a.p' must end a line that starts with a label"),
        ('## A\n**L:** {{paragraph "a.p"}} more\n', "slot 'a.p' must end a line"),
        ('## A {{paragraph "a.p"}}\n', "slot 'a.p' must end a line"),
        ('## A\n| **L:** {{paragraph "a.p"}}\n', "slot 'a.p' must end a line"),
        ('# {{projectname}}\n## A\n| {{cell "a.x"}} |\n', "unknown name 'projectname'"),
        ("## A\n| {{cell}} |\n", "takes one quoted slot id"),
        ('## A\n| {{cell "has space"}} |\n', "takes one quoted slot id"),
        ('## A\n| {{cell "a" "b"}} |\n', "takes one quoted slot id"),
        ("# {{project_name}}\n## A\nno slots here\n", "the template has no slots"),
    ],
)
def test_broken_templates_are_refused(source: str, message: str) -> None:
    with pytest.raises(PlanTemplateError, match=re.escape(message)):
        PlanTemplate("broken", source)


def test_load_errors_name_the_template_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.hbs"
    path.write_text('## A\n| {{cell "a.x"}} | {{cell "a.x"}} |\n')
    with pytest.raises(PlanTemplateError, match=f"plan template {re.escape(str(path))}: slot id"):
        load_template(path)
    with pytest.raises(PlanTemplateError, match="cannot read plan template"):
        load_template(tmp_path / "missing.hbs")


# --- partial plans -------------------------------------------------------------------------------

PARTIAL = {
    "summary": "Sync paid invoices\nfrom Stripe to Xero.",
    "context.objective": "Stop manual CSV imports | double bookings.",
    "architecture.plan": "FastAPI → outbox → worker\r\nretries {{n}} times, <i>never</i> & logs\\",
}


def test_partial_plan_renders_unfilled_slots_as_empty() -> None:
    rendered = _template("engineering").render("Invoice Sync", PARTIAL)
    assert "**In short:** Sync paid invoices<br>from Stripe to Xero.\n" in rendered
    assert "| Stop manual CSV imports \\| double bookings. |  |  |\n" in rendered
    assert rendered.count("|  |  |  |\n") == 4
    assert all(len(row) == 3 for table in _tables(rendered) for row in table)


def test_partial_plan_on_disk_tells_which_slots_are_filled(tmp_path: Path) -> None:
    template = _template("engineering")
    plan = tmp_path / "plan.md"
    plan.write_text(template.render("Invoice Sync", PARTIAL), encoding="utf-8")
    filled = template.read_filled(plan.read_text(encoding="utf-8"))
    assert filled == {k: _as_read_back(v) for k, v in PARTIAL.items()}
    unfilled = [slot.id for slot in template.unfilled(filled)]
    assert unfilled == [i for i in template.slot_ids if i not in PARTIAL]
    assert unfilled[:2] == ["context.plan", "context.assessment"]


def test_read_back_tolerates_crlf_trailing_spaces_and_a_renamed_project() -> None:
    template = _template("engineering")
    rendered = template.render("Invoice Sync", PARTIAL)
    edited = re.sub(r"[ \t]+$", "", rendered, flags=re.MULTILINE).replace("\n", "\r\n")
    edited = edited.replace("# Invoice Sync", "# Invoice Sync v2 \\| beta")
    assert template.read_filled(edited) == template.read_filled(rendered)


def test_placeholder_left_in_a_plan_counts_as_unfilled() -> None:
    template = _template("engineering")
    rendered = template.render("Invoice Sync", {**PARTIAL, "context.plan": "TBD"})
    filled = template.read_filled(rendered)
    assert filled["context.plan"] == "TBD"
    assert "context.plan" in [slot.id for slot in template.unfilled(filled)]
    assert "context.objective" not in [slot.id for slot in template.unfilled(filled)]


def test_a_plan_whose_structure_changed_cannot_be_read_back() -> None:
    template = _template("engineering")
    rendered = template.render("Invoice Sync", PARTIAL)
    with pytest.raises(PlanTemplateError, match="does not follow template 'engineering'"):
        template.read_filled(rendered.replace("## Architecture", "## Design"))
    with pytest.raises(PlanTemplateError, match="does not follow template"):
        template.read_filled(rendered.replace("\n|  |  |  |\n", "\n|  |  |  |  |\n", 1))


def test_rendering_an_unknown_slot_is_an_error() -> None:
    with pytest.raises(PlanTemplateError, match=r"has no slot nonexistent\.cell"):
        _template("engineering").render("X", {"nonexistent.cell": "text"})


# --- template selection --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("plan_type", "expected"),
    [
        ("Plan — engineering", "engineering"),
        ("event plan", "event"),
        ("EVENT", "event"),
        ("Wedding plan", "event"),
        ("Plan (conference for 200 people)", "event"),
        ("Strategy", "strategy"),
        ("Go-to-market plan for a pottery studio", "strategy"),
        ("Technical design for the invoice service", "engineering"),
        ("Generic plan", "generic"),
    ],
)
def test_type_text_selects_a_template(plan_type: str, expected: str) -> None:
    choice = select_template(TEMPLATES_DIR, plan_type)
    assert (choice.name, choice.warning) == (expected, None)
    assert choice.path == TEMPLATES_DIR / f"{expected}.hbs"


def test_unmatched_type_falls_back_to_generic_with_a_warning() -> None:
    choice = select_template(TEMPLATES_DIR, "Garden makeover plan")
    assert choice.path == TEMPLATES_DIR / "generic.hbs"
    assert choice.warning == (
        "No template found for plan type 'Garden makeover plan'. Using generic template."
    )


@pytest.mark.parametrize("plan_type", [None, "", "  "])
def test_missing_type_falls_back_to_generic_with_a_warning(plan_type: str | None) -> None:
    choice = select_template(TEMPLATES_DIR, plan_type)
    assert (choice.name, choice.warning) == (
        "generic",
        "No plan type given. Using generic template.",
    )


def test_earliest_then_longest_name_wins(tmp_path: Path) -> None:
    for stem in ("generic", "launch", "product", "product-launch", "zine"):
        (tmp_path / f"{stem}.hbs").write_text("")
    (tmp_path / "zine.hbs").write_text("{{!-- matches: product launch, fanzine --}}\n")
    assert select_template(tmp_path, "Product launch plan").name == "product-launch"
    assert select_template(tmp_path, "Launch of a product").name == "launch"
    assert select_template(tmp_path, "fanzine launch").name == "zine"
    assert select_template(tmp_path, "products").name == "generic"


def test_a_dropped_in_template_is_selected_and_readme_is_ignored(tmp_path: Path) -> None:
    for stem in ("generic", "wedding"):
        (tmp_path / f"{stem}.hbs").write_text("")
    (tmp_path / "README.md").write_text("event wedding")
    assert select_template(tmp_path, "Wedding plan").name == "wedding"


@pytest.mark.parametrize("files", [[], ["engineering.hbs"], ["generic.md", "notes.txt"]])
def test_no_generic_template_is_a_clear_error(tmp_path: Path, files: list[str]) -> None:
    for name in files:
        (tmp_path / name).write_text("")
    with pytest.raises(NoPlanTemplatesError) as raised:
        select_template(tmp_path, "engineering")
    assert str(raised.value) == (
        "No plan templates found. Ensure at least `generic.hbs` exists in "
        f"`/plugins/plan/templates/`. (looked in {tmp_path})"
    )


def test_missing_templates_directory_is_the_same_error(tmp_path: Path) -> None:
    with pytest.raises(NoPlanTemplatesError, match="No plan templates found"):
        select_template(tmp_path / "nowhere", None)


# --- the builder's response ----------------------------------------------------------------------


def test_response_is_parsed_from_plain_json() -> None:
    response = parse_builder_response('{"slots": {"a.plan": "Do it"}, "stuck": false}')
    assert response == PlanBuilderResponse(slots={"a.plan": "Do it"})


def test_response_is_found_in_a_fence_after_prose_with_braces() -> None:
    text = (
        'Here is the section {as requested}. An example object: {"x": 1}.\n'
        '```json\n{"slots": {"a.plan": "Use {{x}} literally"}, "stuck": false,\n'
        ' "stuck_reason": null, "confidence": "high"}\n```\nDone.'
    )
    assert parse_builder_response(text).slots == {"a.plan": "Use {{x}} literally"}


def test_stuck_response_needs_no_slots() -> None:
    response = parse_builder_response(
        'I need a decision.\n{"stuck": true, "stuck_reason": "Budget ceiling unknown"}'
    )
    assert (response.stuck, response.stuck_reason, response.slots) == (
        True,
        "Budget ceiling unknown",
        {},
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("I could not do it.", "no JSON object with a 'slots' or 'stuck' field"),
        ('{"answer": "x"}', "no JSON object with a 'slots' or 'stuck' field"),
        ('{"slots": ["a", "b"]}', "slots: Input should be a valid dictionary"),
        ('{"slots": {"a.plan": 3}}', "slots.a.plan: Input should be a valid string"),
    ],
)
def test_unusable_response_is_an_error(text: str, message: str) -> None:
    with pytest.raises(BuilderResponseError, match=re.escape(message)):
        parse_builder_response(text)


def test_slot_check_sorts_content_into_accepted_unknown_and_rejected() -> None:
    response = PlanBuilderResponse(
        slots={
            "a.objective": "Ship the MVP by June.",
            "a.plan": "TBD after the call",
            "a.assessment": "  ",
            "ghost.plan": "Content for a slot the template lacks",
        }
    )
    check = check_slots(response, ["a.objective", "a.plan", "a.assessment"])
    assert check.accepted == {"a.objective": "Ship the MVP by June."}
    assert check.unknown == ["ghost.plan"]
    assert check.rejected == {"a.plan": "placeholder text 'TBD'", "a.assessment": "empty"}


@pytest.mark.parametrize(
    "text",
    ["TBD", "tbd.", "(TODO)", "TODO: decide the venue", "Placeholders for now", "[placeholder]",
     "Budget: todos remain", "", " \n ", "—", "- ..."],
)  # fmt: skip
def test_placeholder_or_empty_content_is_rejected(text: str) -> None:
    assert unfilled_reason(text) is not None


@pytest.mark.parametrize(
    ("text", "why"),
    [("<plan_description>", "template text '<plan_description>'"),
     ("{{budget}}", "template text '{{budget}}'"),
     ("plan_to_deliverable_overview.md", "template text 'plan_to_deliverable_overview.md'"),
     ("[Insert the venue here]", "template text '[Insert the venue here]'"),
     ('Book it <script src="x.js">', "markup '<script src=\"x.js\">'"),
     ("<iframe src=x></iframe>", "markup '<iframe src=x>'"),
     ("Xk9qZ2pL", "no words"),
     ("qzxkv 8d7f", "no words")],
)  # fmt: skip
def test_template_text_markup_and_wordless_strings_are_rejected(text: str, why: str) -> None:
    """SmolLM2 filled slots with `<plan_description>`, random strings and `<script src=`."""
    reason = unfilled_reason(text)
    assert reason is not None and reason.startswith(why)


@pytest.mark.parametrize(
    "text",
    ["Integrate Todoist and Mastodon", "The todolist-app rewrite", "Outbound sales",
     "N/A: the venue provides chairs", "42", "a < b, so b > a", "予算は一万五千円", "Go"],
)  # fmt: skip
def test_real_content_is_accepted(text: str) -> None:
    assert unfilled_reason(text) is None
