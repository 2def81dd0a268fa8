"""A plugin's progress reports are checked at the contract and coalesced: a plugin that hands its
listener a string, then reports per item thousands of times, still builds to done in a real run,
and the page shows its last report."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.examples.test_checklist_plugin import BRAIN_DUMP, EXAMPLES, FIXED
from tests.examples.test_checklist_plugin import script as script  # the scripted answers
from thoughtforge.config import load_config
from thoughtforge.core.build_progress import read_build_progress
from thoughtforge.core.creation import create_project
from thoughtforge.core.project_log import read_events
from thoughtforge.core.state import read_status
from thoughtforge.flows.pipeline import pipeline_in_process
from thoughtforge.models import Phase

REPORTS = 20_000
"""At the 16 reports a second each once cost (a file and an artifact each): over 20 minutes."""


@pytest.fixture
def noisy_plugins(tmp_path: Path) -> Path:
    """The checklist example, with a builder that reports a string, then per item."""
    folder = tmp_path / "plugins"
    shutil.copytree(EXAMPLES / "checklist", folder / "checklist")
    builder = folder / "checklist" / "builder.py"
    text = builder.read_text()
    noisy = (
        'self.on_progress("50% done")  # type: ignore[arg-type]\n'
        "            self.on_progress({'items': 'not a list'})  # type: ignore[arg-type]\n"
        f"            for n in range({REPORTS}):\n"
        '                self.on_progress(_progress(done=False, detail=f"item {n}"))\n'
        "            self.on_progress("
    )
    text = text.replace("self.on_progress(_progress(done=True", noisy + "_progress(done=True", 1)
    builder.write_text(text)
    return folder


@pytest.mark.usefixtures("script", "prefect_api_url")
def test_a_plugin_reporting_a_string_then_per_item_still_builds_to_done(
    write_config: Callable[..., Path], noisy_plugins: Path
) -> None:
    config_path = write_config(plugins={"directory": str(noisy_plugins)})
    project = create_project(load_config(config_path), brain_dump=BRAIN_DUMP)

    started = time.monotonic()
    assert pipeline_in_process(project.id, config_path, auto_confirm=True) == "done"
    assert time.monotonic() - started < 240

    assert read_status(project.dir).phase is Phase.DONE
    assert (project.dir / "docs" / "checklist.md").read_text() == FIXED
    progress = read_build_progress(project.dir)
    assert progress is not None and [i.detail for i in progress.items] == ["3 items"]
    refused = [e for e in read_events(project.dir) if e["event"] == "build_progress_refused"]
    assert refused[0]["given"] == "'50% done'" and refused[-1]["reports"] == 2
