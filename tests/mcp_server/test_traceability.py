"""Each acceptance criterion's evidence is a document the MCP server reads like the others."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.polish_setup import polishing_project
from thoughtforge.actions.documents import DOCUMENTS
from thoughtforge.config import Config
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.mcp_server.documents import read_document
from thoughtforge.mcp_server.tools import Tools


def test_traceability_is_read_as_a_document(config: Config, tmp_path: Path) -> None:
    project = polishing_project(config)
    tools = Tools(tmp_path / "config.yaml", config)
    with pytest.raises(ThoughtForgeError, match="has no traceability yet"):
        read_document(tools, project.id, "traceability")
    (project.dir / "docs" / "traceability.md").write_text("# Traceability: Wedding\n")

    assert "traceability" in DOCUMENTS
    assert read_document(tools, project.id, "traceability") == "# Traceability: Wedding\n"
