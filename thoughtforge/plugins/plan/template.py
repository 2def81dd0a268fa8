"""A plan template: a Handlebars OPA skeleton whose slots are found in the template itself.

A slot is a helper call: `{{cell "architecture.plan"}}` is one OPA table cell, `{{paragraph
"summary"}}` a one-paragraph text after a label on its line. Rendering the template once with
recording helpers yields every slot in document order with the `##` heading above it, so no list
of slots is kept by hand and a dropped-in template needs no code.

An unfilled slot renders empty (filled content is never blank). The same skeleton, turned into
one pattern per line, reads the filled slots back out of a `plan.md` written earlier, so the plan
on disk is the only record of a partial build: nothing beside it can disagree with it. Escaped
slot text never spans lines, which is what makes a line-by-line match exact.

One module of about 310 lines on purpose: rendering, slot discovery and read-back all derive
from the same skeleton and must change together.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from pydantic import BaseModel, ConfigDict

from thoughtforge.errors import ThoughtForgeError
from thoughtforge.plugins.plan.slot_content import unfilled_reason
from thoughtforge.prompting.markdown_escaping import (
    escape_cell,
    escape_inline,
    escape_paragraph,
    unescape_cell,
    unescape_paragraph,
)

if TYPE_CHECKING:
    import pybars


class SlotKind(StrEnum):
    CELL = "cell"
    PARAGRAPH = "paragraph"


class Slot(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    kind: SlotKind
    section: str


class Section(BaseModel):
    heading: str
    slots: list[Slot]


class PlanTemplateError(ThoughtForgeError):
    """A template that cannot be used, or a plan that no longer follows its template."""


_SLOT_ID = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*")
# Marks stand in for slots and the project name while the skeleton is examined; a template file
# holds no NUL character, so a mark cannot collide with template text.
_MARK = "\x00"
_SLOT_MARK = re.compile(r"\x00(\d+)\x00")
_PROJECT_NAME_MARK = "\x00project_name\x00"
_ANY_MARK = re.compile(r"(\x00(?:\d+|project_name)\x00)")
_SECTION_HEADING = re.compile(r" {0,3}#{2,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_SPACES = re.compile(r"([ \t]+)")
# What a filled slot can look like on disk: a cell has no unescaped pipe, and neither spans lines.
_CELL_TEXT = r"(?:[^|\\\r\n]|\\.)*"
_PARAGRAPH_TEXT = r"[^\r\n]*"

_ESCAPE = {SlotKind.CELL: escape_cell, SlotKind.PARAGRAPH: escape_paragraph}
_UNESCAPE = {SlotKind.CELL: unescape_cell, SlotKind.PARAGRAPH: unescape_paragraph}
_ON_DISK = {SlotKind.CELL: _CELL_TEXT, SlotKind.PARAGRAPH: _PARAGRAPH_TEXT}

# pybars keeps its code builder in a class attribute, so two compilations must not overlap.
_COMPILE_LOCK = threading.Lock()

_SlotCall = tuple[str, SlotKind]
_Fill = Callable[[str, SlotKind], str]


class PlanTemplate:
    """One compiled template with its slots; `name` is what selection matched (the file stem)."""

    def __init__(self, name: str, source: str) -> None:
        self.name = name
        self._render = _compile(source)
        skeleton, calls = self._render_skeleton()
        self.slots = _locate_slots(skeleton, calls)
        self._kinds = {slot.id: slot.kind for slot in self.slots}
        self._lines = _skeleton_lines(skeleton, calls)

    @property
    def slot_ids(self) -> list[str]:
        return [slot.id for slot in self.slots]

    def sections(self) -> list[Section]:
        """Slots grouped under their headings in document order, for a section-by-section build."""
        sections: list[Section] = []
        for slot in self.slots:
            if not sections or sections[-1].heading != slot.section:
                sections.append(Section(heading=slot.section, slots=[]))
            sections[-1].slots.append(slot)
        return sections

    def render(self, project_name: str, filled: Mapping[str, str]) -> str:
        """Slots missing from `filled` render empty, so a partial plan can be saved and resumed."""
        unknown = sorted(set(filled) - self._kinds.keys())
        if unknown:
            raise PlanTemplateError(f"template '{self.name}' has no slot {', '.join(unknown)}")

        def fill(slot_id: str, kind: SlotKind) -> str:
            return _ESCAPE[kind](filled.get(slot_id, ""))

        return self._run(escape_inline(project_name), fill)

    def read_filled(self, plan: str) -> dict[str, str]:
        """The non-empty slots of a plan rendered from this template, as their text was given."""
        lines = _non_blank_lines(plan)
        if len(lines) != len(self._lines):
            raise self._not_following(
                f"it has {len(lines)} non-blank lines where the template has {len(self._lines)}"
            )
        filled: dict[str, str] = {}
        for line, expected in zip(lines, self._lines, strict=True):
            match = expected.pattern.fullmatch(line)
            if match is None:
                detail = f"found {line!r} where the template has {expected.text!r}"
                raise self._not_following(detail)
            for slot_id, raw in zip(expected.slot_ids, match.groups(), strict=True):
                text = _UNESCAPE[self._kinds[slot_id]](raw.strip())
                if text.strip():
                    filled[slot_id] = text
        return filled

    def unfilled(self, filled: Mapping[str, str]) -> list[Slot]:
        """Slots still missing, empty or holding a placeholder, in document order."""
        return [s for s in self.slots if unfilled_reason(filled.get(s.id, "")) is not None]

    def _not_following(self, detail: str) -> PlanTemplateError:
        return PlanTemplateError(
            f"the plan does not follow template '{self.name}', so its filled slots cannot be told "
            f"apart: {detail}"
        )

    def _render_skeleton(self) -> tuple[str, list[_SlotCall]]:
        calls: list[_SlotCall] = []

        def record(slot_id: str, kind: SlotKind) -> str:
            calls.append((slot_id, kind))
            return f"{_MARK}{len(calls) - 1}{_MARK}"

        return self._run(_PROJECT_NAME_MARK, record), calls

    def _run(self, project_name: str, fill: _Fill) -> str:
        import pybars  # already loaded by `_compile`

        # A pybars strlist is inserted verbatim: that is how escaped text bypasses HTML escaping.
        name = pybars.strlist([project_name])
        try:
            return self._render({"project_name": name}, helpers=_helpers(fill))
        except pybars.PybarsError as exc:
            raise PlanTemplateError(f"template '{self.name}' failed to render: {exc}") from None


def load_template(path: Path) -> PlanTemplate:
    """Read and check a `.hbs` template; a broken one is a `PlanTemplateError`."""
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PlanTemplateError(f"cannot read plan template {path}: {exc}") from None
    try:
        return PlanTemplate(path.stem, source)
    except PlanTemplateError as exc:
        raise PlanTemplateError(f"plan template {path}: {exc}") from None


def _compile(source: str) -> Callable[..., str]:
    # pybars compiles its grammar when imported (bench/bench_import_costs.py measures it): loaded
    # by the first template that is read, not by every flow process that imports the plan plugin.
    import pybars

    if _MARK in source:
        raise PlanTemplateError("the template contains a NUL character")
    try:
        with _COMPILE_LOCK:
            return pybars.Compiler().compile(source)
    except pybars.PybarsError as exc:
        raise PlanTemplateError(f"not a valid Handlebars template: {exc}") from None


def _helpers(fill: _Fill) -> dict[str, Callable[..., object]]:
    def slot_helper(kind: SlotKind) -> Callable[..., pybars.strlist]:
        def helper(_this: object, *args: object) -> pybars.strlist:
            import pybars  # already loaded by `_compile`

            return pybars.strlist([fill(_slot_id(kind, args), kind)])

        return helper

    return {
        "cell": slot_helper(SlotKind.CELL),
        "paragraph": slot_helper(SlotKind.PARAGRAPH),
        "helperMissing": _unknown_name,
    }


def _slot_id(kind: SlotKind, args: tuple[object, ...]) -> str:
    if len(args) != 1 or not isinstance(args[0], str) or not _SLOT_ID.fullmatch(args[0]):
        raise PlanTemplateError(
            f'{{{{{kind} …}}}} takes one quoted slot id of letters, digits, "_", "-" and dots, '
            f'e.g. {{{{{kind} "architecture.plan"}}}}; got {args!r}'
        )
    return args[0]


def _unknown_name(_this: object, name: str, *_args: object) -> None:
    """pybars renders an unknown name as nothing; in a plan template it is a typo to report."""
    raise PlanTemplateError(
        f"unknown name '{name}': a plan template may use project_name, cell and paragraph"
    )


def _locate_slots(skeleton: str, calls: list[_SlotCall]) -> list[Slot]:
    repeated = sorted(slot_id for slot_id, n in Counter(i for i, _ in calls).items() if n > 1)
    if repeated:
        raise PlanTemplateError(f"slot id used more than once: {', '.join(repeated)}")
    if not calls:
        raise PlanTemplateError('the template has no slots ({{cell "…"}} or {{paragraph "…"}})')
    slots: list[Slot] = []
    section: str | None = None
    for line in _LINE_BREAK.split(skeleton):
        heading = _SECTION_HEADING.fullmatch(line)
        if heading:
            section = heading.group(1).replace(_PROJECT_NAME_MARK, "{{project_name}}")
        for mark in _SLOT_MARK.finditer(line):
            slot_id, kind = calls[int(mark.group(1))]
            _check_placement(slot_id, kind, line, mark, section, is_heading=heading is not None)
            slots.append(Slot(id=slot_id, kind=kind, section=section or ""))
    return slots


def _check_placement(
    slot_id: str,
    kind: SlotKind,
    line: str,
    mark: re.Match[str],
    section: str | None,
    *,
    is_heading: bool,
) -> None:
    """Placement makes escaping sufficient: a cell's row and a paragraph's label stay fixed."""
    in_table = line.lstrip().startswith("|")
    if section is None:
        problem = "is not under a section heading (## …)"
    elif kind is SlotKind.CELL and not in_table:
        problem = "must be inside a Markdown table row"
    elif kind is SlotKind.PARAGRAPH and (
        is_heading or in_table or not line[: mark.start()].strip() or line[mark.end() :].strip()
    ):
        problem = f'must end a line that starts with a label, e.g. **Summary:** {{{{{kind} "…"}}}}'
    else:
        return
    raise PlanTemplateError(f"slot '{slot_id}' {problem}")


class _SkeletonLine(NamedTuple):
    text: str
    pattern: re.Pattern[str]
    slot_ids: list[str]


def _skeleton_lines(skeleton: str, calls: list[_SlotCall]) -> list[_SkeletonLine]:
    """Each non-blank skeleton line as a regex: slots become groups, spacing is loose."""
    lines: list[_SkeletonLine] = []
    for line in _non_blank_lines(skeleton):
        pattern: list[str] = []
        slot_ids: list[str] = []
        for part in _ANY_MARK.split(line):
            slot_mark = _SLOT_MARK.fullmatch(part)
            if slot_mark:
                slot_id, kind = calls[int(slot_mark.group(1))]
                slot_ids.append(slot_id)
                pattern.append(f"({_ON_DISK[kind]})")
            elif part == _PROJECT_NAME_MARK:
                pattern.append(_CELL_TEXT)
            else:
                pattern.extend(
                    r"[ \t]*" if token.isspace() else re.escape(token)
                    for token in _SPACES.split(part)
                    if token
                )
        text = _ANY_MARK.sub("…", line)
        lines.append(_SkeletonLine(text, re.compile("".join(pattern)), slot_ids))
    return lines


def _non_blank_lines(text: str) -> list[str]:
    """Blank lines carry no slot, and editors add or drop them, so only the others are compared."""
    return [line.strip() for line in _LINE_BREAK.split(text) if line.strip()]
