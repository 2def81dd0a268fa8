"""`dying_with_parent`: a command wrapped in `setpriv --pdeathsig KILL` where the installed
`setpriv` takes it, else left as it is (a run killed with -9 then leaves it to the next run)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from thoughtforge.core import child_lifetime
from thoughtforge.core.child_lifetime import dying_with_parent


@pytest.fixture
def setpriv_at(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Path], None]]:
    def use(path: Path) -> None:
        monkeypatch.setattr(child_lifetime, "SETPRIV", str(path))
        child_lifetime._setpriv_takes_pdeathsig.cache_clear()

    yield use
    child_lifetime._setpriv_takes_pdeathsig.cache_clear()


def test_the_installed_setpriv_wraps_the_command() -> None:
    assert Path("/usr/bin/setpriv").exists(), "util-linux's setpriv is part of the test image"
    assert dying_with_parent(["agent", "--flag"]) == [
        "/usr/bin/setpriv",
        "--pdeathsig",
        "KILL",
        "--",
        "agent",
        "--flag",
    ]


def test_without_setpriv_or_with_one_too_old_the_command_runs_as_it_is(
    setpriv_at: Callable[[Path], None], tmp_path: Path
) -> None:
    use = setpriv_at
    use(tmp_path / "missing")
    assert dying_with_parent(["agent"]) == ["agent"]
    old = tmp_path / "setpriv"
    old.write_text("#!/bin/sh\necho 'Usage: setpriv [options] <program> [<argument>...]'\n")
    old.chmod(0o755)
    use(old)
    assert dying_with_parent(["agent"]) == ["agent"]
