"""What an agent host is told: the instructions sent to every client and README's section name
only tools that exist, name every tool there is, and never call one missing."""

from __future__ import annotations

import inspect
import re

from tests.conftest import REPO_ROOT
from thoughtforge.mcp_server.tool_table import TOOLS
from thoughtforge.mcp_server.tool_types import Turn
from thoughtforge.mcp_server.transports import INSTRUCTIONS
from thoughtforge.models import HaltReason

TOOL_NAMES = {tool.__name__ for tool in TOOLS}
PARAMETERS = {name for tool in TOOLS for name in list(inspect.signature(tool).parameters)[1:]}
ANSWER_FIELDS = set(Turn.model_fields) | {reason.value for reason in HaltReason}
"""Names that are not tools: an answer's fields, and the halt reasons tools report."""
MISSING = re.compile(r"(not there yet|do(es)? not exist|not (yet )?(available|supported))", re.I)


def named_identifiers(text: str) -> set[str]:
    """The snake_case names in `text` (a tool, a parameter or an answer's field)."""
    return set(re.findall(r"\b[a-z]+(?:_[a-z]+)+\b", text))


def readme_mcp_section() -> str:
    """`docs/mcp.md`, where the README sends an agent host's owner."""
    return (REPO_ROOT / "docs" / "mcp.md").read_text()


def test_the_instructions_name_every_tool_and_only_tools_that_exist() -> None:
    words = set(re.findall(r"\b[a-z_]+\b", INSTRUCTIONS))
    assert words >= TOOL_NAMES, f"tools the instructions never name: {TOOL_NAMES - words}"
    unknown = named_identifiers(INSTRUCTIONS) - TOOL_NAMES - PARAMETERS - ANSWER_FIELDS
    assert not unknown, f"the instructions name tools that do not exist: {unknown}"
    assert not MISSING.search(INSTRUCTIONS)


def test_the_readme_lists_every_tool_and_calls_none_missing() -> None:
    section = readme_mcp_section()
    quoted = set(re.findall(r"`([a-z_]+)`", section))
    assert quoted >= TOOL_NAMES, f"tools README's MCP section never names: {TOOL_NAMES - quoted}"
    unknown = {name for name in quoted if "_" in name} - TOOL_NAMES - PARAMETERS - ANSWER_FIELDS
    assert not unknown, f"README names tools that do not exist: {unknown}"
    assert not MISSING.search(section), MISSING.search(section)
