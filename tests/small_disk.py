"""A small tmpfs of a test's own, so filling it (or remounting it read-only) touches nothing else.
Mounting needs root: elsewhere the test skips, saying so."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def small_tmpfs(tmp_path: Path, size: str) -> Iterator[Path]:
    """`tmp_path/disk`, a tmpfs of `size` (`mount`'s words: "4m"), unmounted afterwards."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs (to fill it, or make it read-only) needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(disk)], check=True)
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)
