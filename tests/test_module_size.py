"""No module of the package is over 400 lines: a module that grows past it holds more than one
idea, and is split along its seam rather than let grow. Lines are counted as `wc -l` counts them.
"""

from __future__ import annotations

from pathlib import Path

import thoughtforge

PACKAGE = Path(thoughtforge.__file__).parent
MAX_LINES = 400


def test_no_module_of_the_package_is_over_400_lines() -> None:
    over = {
        path.relative_to(PACKAGE).as_posix(): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if (lines := path.read_bytes().count(b"\n")) > MAX_LINES
    }
    assert over == {}
