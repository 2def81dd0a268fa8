"""The start-up agent check stays light: `up` runs it on every start, warm ones included."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import REPO_ROOT, config_data


def test_the_start_up_check_finds_a_command_without_importing_httpx(tmp_path: Path) -> None:
    """Before, the check reached `find_command` through the module that also holds the HTTP
    agent's call, so every warm `up` imported httpx for an agent it never called."""
    config = tmp_path / "config.yaml"
    data = config_data(tmp_path, agents={"default": "gone"})
    data["agents"]["available"]["gone"] = {"command": "no-such-agent-cli"}
    config.write_text(yaml.safe_dump(data))
    probe = (
        "import sys\nfrom pathlib import Path\n"
        "from thoughtforge.adapters.agents import warn_if_missing\n"
        "from thoughtforge.config import load_config\n"
        f"warn_if_missing(load_config(Path({str(config)!r})), None, print)\n"
        "print('HTTPX_LOADED' if 'httpx' in sys.modules else 'NO_HTTPX')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "Default agent 'gone' not found on PATH" in lines[0], result.stdout
    assert lines[-1] == "NO_HTTPX", result.stdout
