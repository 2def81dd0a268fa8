"""ThoughtForge's own run of the locked tests, with a real pytest: only a test that ran and
passed passes; the project's `addopts` and the cache play no part."""

from __future__ import annotations

import sys
from pathlib import Path

from thoughtforge.plugins.code.acceptance.runner import (
    collected_count,
    pytest_program,
    run_locked,
)

TESTS = """import pytest


def test_ac_1_passes():
    assert True


@pytest.mark.skip
def test_ac_2_skipped():
    assert True


@pytest.mark.xfail
def test_ac_3_xfailed():
    assert False


def test_ac_4_skips_itself():
    pytest.skip("later")


@pytest.fixture
def broken():
    raise RuntimeError("no")


def test_ac_5_errors(broken):
    assert True


@pytest.mark.parametrize("x", [1, 2])
def test_ac_6_cases(x):
    assert x < 2


class TestSeven:
    def test_ac_7_in_a_class(self):
        assert True
"""
PROGRAM = [sys.executable, "-m", "pytest"]


def test_each_locked_test_gets_its_own_result(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_all.py").write_text(TESTS)
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -k ac_1 -p no:python\n")
    nodes = {
        "tests/test_all.py::test_ac_1_passes": "passed",
        "tests/test_all.py::test_ac_2_skipped": "skipped",
        "tests/test_all.py::test_ac_3_xfailed": "xfailed",
        "tests/test_all.py::test_ac_4_skips_itself": "skipped",
        "tests/test_all.py::test_ac_5_errors": "error",
        "tests/test_all.py::test_ac_6_cases": "failed",
        "tests/test_all.py::TestSeven::test_ac_7_in_a_class": "passed",
    }

    run = run_locked(tmp_path, PROGRAM, list(nodes), timeout=120)

    assert run.results == nodes, run.output_tail
    assert run.failing == [n for n, r in nodes.items() if r != "passed"]
    assert collected_count(tmp_path, PROGRAM, timeout=120) == 8
    assert not list(tmp_path.glob(".pytest_cache")), "no cache left behind"


def test_the_program_is_the_pytest_the_project_command_names() -> None:
    assert pytest_program(["/venv/bin/python", "-m", "pytest", "-q", "-x"]) == [
        "/venv/bin/python",
        "-m",
        "pytest",
    ]
    assert pytest_program(["uv", "run", "pytest", "tests"]) == ["uv", "run", "pytest"]
    assert pytest_program(["make", "test"]) == [sys.executable, "-m", "pytest"]
