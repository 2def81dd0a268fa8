"""A deliverable type from `plugins.directory` shows its build progress in the page, as its plugin
reports it: the example checklist plugin's project run to done, then its thread page in a real
browser (headless Debian Chromium driven by Playwright)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.examples.test_checklist_plugin import BRAIN_DUMP, EXAMPLES
from tests.examples.test_checklist_plugin import script as script  # the scripted agent's answers
from tests.web.conftest import Bench
from thoughtforge.config import load_config
from thoughtforge.core.creation import create_project
from thoughtforge.flows.pipeline import pipeline_in_process

pytestmark = pytest.mark.slow


@pytest.mark.usefixtures("script", "prefect_api_url")
def test_the_example_plugins_build_progress_shows_in_the_page(
    write_config: Callable[..., Path], serve_bench: Callable[[Path], Bench], browser: Any
) -> None:
    config_path = write_config(plugins={"directory": str(EXAMPLES)})
    project = create_project(load_config(config_path), brain_dump=BRAIN_DUMP)
    assert pipeline_in_process(project.id, config_path, auto_confirm=True) == "done"
    bench = serve_bench(config_path)

    page = browser.new_page()
    try:
        page.goto(f"{bench.url}/projects/{project.id}")
        steps = page.locator("ol.build li")
        steps.first.wait_for(timeout=20_000)
        assert steps.count() == 1
        assert steps.first.get_attribute("class") == "done"
        assert "write the checklist" in steps.first.inner_text()
        assert steps.first.locator(".detail").inner_text() == "3 items"
    finally:
        page.close()
