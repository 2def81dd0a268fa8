"""What pytest reads before a test: each way of changing it is seen, whatever words it uses."""

from __future__ import annotations

import pytest

from thoughtforge.plugins.code.acceptance.runner_files import (
    changed_runner_files,
    runner_fingerprints,
)

BEFORE = {
    "pyproject.toml": '[project]\nname = "calc"\n\n[tool.pytest.ini_options]\nmarkers = ["a"]\n',
    "conftest.py": "import pytest\n",
    "tests/helpers.py": "EXPECTED = 6\n",
    "tests/test_calc.py": "def test_ac_1():\n    pass\n",
    "calc.py": "def mul(a, b):\n    return a * b\n",
    "setup.cfg": "[metadata]\nname = calc\n",
}


def _changed(files: dict[str, str]) -> list[str]:
    before = runner_fingerprints(list(BEFORE), BEFORE.get)
    return changed_runner_files(before, runner_fingerprints(list(files), files.get))


@pytest.mark.parametrize(
    ("path", "text", "changed"),
    [
        ("pytest.ini", "[pytest]\naddopts = --deselect tests/test_calc.py::test_ac_1\n", True),
        (
            "pyproject.toml",
            BEFORE["pyproject.toml"] + 'addopts = "-k not ac_1"\n',
            True,
        ),
        ("setup.cfg", BEFORE["setup.cfg"] + "[tool:pytest]\naddopts = -p no:python\n", True),
        ("tox.ini", "[pytest]\naddopts = -x\n", True),
        ("conftest.py", "import pytest\ncollect_ignore = ['tests']\n", True),
        (
            "tests/conftest.py",
            "def pytest_collection_modifyitems(items):\n    items.clear()\n",
            True,
        ),
        ("tests/helpers.py", "EXPECTED = 5\n", True),
        ("sitecustomize.py", "import builtins\n", True),
        ("tests/pytest.ini", "[pytest]\npythonpath = ../vendor\n", True),  # nearer than the root's
        ("tests/tox.ini", "[pytest]\npythonpath = ../vendor\n", True),
        ("pytest.py", "import sys\nsys.exit(0)\n", True),  # `python -m pytest` would run it
        ("pluggy/__init__.py", "", True),
        ("_pytest/python.py", "", True),
        ("docs/tox.ini", "[tox]\nenvlist = py311\n", False),
        ("pytest_helpers.py", "X = 1\n", False),
        ("src/pytest.py", "X = 1\n", False),
        ("conftest.py", "import pytest  # a comment only\n", False),
        ("pyproject.toml", BEFORE["pyproject.toml"].replace('"calc"', '"calc2"'), False),
        ("setup.cfg", "[metadata]\nname = other\n", False),
        ("calc.py", "def mul(a, b):\n    return b * a\n", False),
        ("tests/test_more.py", "def test_new():\n    pass\n", False),
    ],
)
def test_a_change_to_the_runner_is_seen_and_nothing_else_is(
    path: str, text: str, changed: bool
) -> None:
    assert _changed({**BEFORE, path: text}) == ([path] if changed else [])


def test_a_removed_conftest_is_a_change() -> None:
    files = {k: v for k, v in BEFORE.items() if k != "conftest.py"}
    assert _changed(files) == ["conftest.py"]
