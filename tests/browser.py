"""Headless Debian Chromium, driven by Playwright, for the tests that look at a page.

Playwright cannot download its own browser here, so it drives `/usr/bin/chromium`
(`apt-get install chromium`; `.ci/run` installs it). Without either, the test skips and says why.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def launch_browser() -> Iterator[Any]:
    """A launched browser until the generator is closed (the `browser` fixture)."""
    playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
    if not CHROMIUM.exists():
        pytest.skip("Debian chromium is not installed (apt-get install chromium)")
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        yield launched
        launched.close()
