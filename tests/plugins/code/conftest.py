from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.code_setup import write_script


@pytest.fixture
def script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    """Writes the scripted coding agent's answers (by step) and points the agent at them."""

    def write(**steps: object) -> Path:
        path = write_script(tmp_path / "script.yaml", **steps)
        monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(path))
        return path

    return write
