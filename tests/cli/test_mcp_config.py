"""`thoughtforge mcp --print-config`: entries a person pastes as they are, for this install."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner

from thoughtforge.cli import app


def _blocks(text: str) -> tuple[str, list[dict[str, object]]]:
    """The `claude mcp add` line and the JSON entries of the printed text."""
    parts = text.split("\n# ")
    claude = parts[0].splitlines()[1]
    entries = [json.loads(part.split("\n", 1)[1]) for part in parts[1:]]
    return claude, entries


def test_the_stdio_entries_name_this_install_by_absolute_path(
    write_config: Callable[..., Path],
) -> None:
    config = write_config()
    printed = CliRunner().invoke(app, ["--config", str(config), "mcp", "--print-config"])
    assert printed.exit_code == 0, printed.output
    claude, entries = _blocks(printed.output)
    words = shlex.split(claude)
    assert words[:5] == ["claude", "mcp", "add", "thoughtforge", "--"]
    assert words[-3:] == ["--config", str(config.resolve()), "mcp"]
    assert Path(words[5]).is_absolute()
    for entry in entries:
        server = entry["mcpServers"]["thoughtforge"]  # type: ignore[index]
        assert [server["command"], *server["args"]] == words[5:]


def test_the_http_entries_carry_the_servers_token(write_config: Callable[..., Path]) -> None:
    config = write_config()
    printed = CliRunner().invoke(
        app, ["--config", str(config), "mcp", "--http", "--port", "9123", "--print-config"]
    )
    assert printed.exit_code == 0, printed.output
    token = (config.parent / ".thoughtforge" / "mcp-token").read_text()
    claude, entries = _blocks(printed.output)
    assert shlex.split(claude) == [
        "claude", "mcp", "add", "--transport", "http", "thoughtforge",
        "http://127.0.0.1:9123/mcp", "--header", f"Authorization: Bearer {token}",
    ]  # fmt: skip
    for entry in entries:
        server = entry["mcpServers"]["thoughtforge"]  # type: ignore[index]
        assert server["url"] == "http://127.0.0.1:9123/mcp"
        assert server["headers"] == {"Authorization": f"Bearer {token}"}
    again = CliRunner().invoke(
        app, ["--config", str(config), "mcp", "--http", "--port", "9123", "--print-config"]
    )
    assert again.output == printed.output, "the token is made once"
