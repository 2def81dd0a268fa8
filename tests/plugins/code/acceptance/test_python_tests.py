"""The fingerprint of a locked test: blind to comments and layout, not to anything that changes
what it checks or whether it runs."""

from __future__ import annotations

import pytest

from thoughtforge.plugins.code.acceptance.python_tests import (
    FoundTest,
    ModuleContext,
    context_kept,
    criterion_of,
    reaches_into_runner,
    read_module,
)

MODULE = '''import pytest
from calc import mul

FACTOR = 3


class TestMul:
    def test_ac_2_mul(self):
        assert mul(2, FACTOR) == 6


def test_ac_1_add():
    """Criterion 1."""
    assert 1 + 1 == 2


def test_other():
    assert True
'''


def _read(source: str) -> tuple[dict[str, FoundTest], ModuleContext]:
    module = read_module("tests/test_calc.py", source)
    assert module is not None
    return {t.node_id: t for t in module.tests}, module.context


def test_tests_are_found_with_their_node_ids_and_criteria() -> None:
    tests, _ = _read(MODULE)
    assert {node: t.criterion for node, t in tests.items()} == {
        "tests/test_calc.py::TestMul::test_ac_2_mul": 2,
        "tests/test_calc.py::test_ac_1_add": 1,
        "tests/test_calc.py::test_other": None,
    }


@pytest.mark.parametrize(
    ("name", "number"),
    [("test_ac_1", 1), ("test_ac_12_big", 12), ("test_AC3_x", 3), ("test_acme", None)],
)
def test_the_naming_convention(name: str, number: int | None) -> None:
    assert criterion_of(name) == number


def test_comments_layout_and_other_tests_leave_the_fingerprint_alone() -> None:
    tests, context = _read(MODULE)
    moved = (
        MODULE.replace("    assert 1 + 1 == 2", "    # why\n    assert (1 + 1) == 2  # sum")
        .replace("def test_other():\n    assert True", "def test_other():\n    assert 2")
        .replace("import pytest\n", "import pytest\nimport math\n")
        + "\n\n@pytest.mark.parametrize('x', [1, 2])\ndef test_new(x):\n    assert x\n"
    )
    after, context_after = _read(moved)
    assert after["tests/test_calc.py::test_ac_1_add"].fingerprint == (
        tests["tests/test_calc.py::test_ac_1_add"].fingerprint
    )
    assert context_kept(context, context_after) is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("def test_ac_1_add():", "@pytest.mark.skip\ndef test_ac_1_add():"),
        ("def test_ac_1_add():", "@pytest.mark.skipif(True, reason='x')\ndef test_ac_1_add():"),
        ("def test_ac_1_add():", "@pytest.mark.xfail\ndef test_ac_1_add():"),
        ('    """Criterion 1."""\n', '    """Criterion 1."""\n    pytest.skip("later")\n'),
        ("assert 1 + 1 == 2", "assert True"),
        ("assert 1 + 1 == 2", "assert 1 + 1 == 3"),
        ("FACTOR = 3", "FACTOR = 4"),
        ("import pytest\n", "import pytest\npytestmark = pytest.mark.skip\n"),
        ("def test_other():", "@(lambda f: f)\ndef test_other():"),
    ],
    ids=[
        "skip",
        "skipif",
        "xfail",
        "skip-inside",
        "assert-true",
        "expected",
        "constant",
        "pytestmark",
        "code-at-import",
    ],
)
def test_anything_that_changes_what_a_locked_test_checks_changes_its_fingerprint(
    old: str, new: str
) -> None:
    tests, _ = _read(MODULE)
    after, _ = _read(MODULE.replace(old, new, 1))
    node = "tests/test_calc.py::test_ac_1_add"
    assert after[node].fingerprint != tests[node].fingerprint


def test_a_class_level_marker_changes_its_methods() -> None:
    tests, _ = _read(MODULE)
    after, _ = _read(MODULE.replace("class TestMul:", "@pytest.mark.skip\nclass TestMul:"))
    node = "tests/test_calc.py::TestMul::test_ac_2_mul"
    assert after[node].fingerprint != tests[node].fingerprint


@pytest.mark.parametrize(
    ("added", "why"),
    [
        ("from fake import mul\n", "rebinds mul"),
        ("from fake import *\n", "star import"),
    ],
)
def test_an_import_that_rebinds_a_name_is_refused(added: str, why: str) -> None:
    _, context = _read(MODULE)
    _, after = _read(MODULE.replace("FACTOR = 3", added + "FACTOR = 3"))
    refusal = context_kept(context, after)
    assert refusal is not None and why in refusal


def test_a_module_that_does_not_parse_has_no_tests() -> None:
    assert read_module("test_x.py", "def test_ac_1(:\n") is None


@pytest.mark.parametrize(
    ("source", "named"),
    [
        ("import _pytest.python\n", ["_pytest"]),
        ("import sys\nUNDER = 'pytest' in sys.modules\n", ["pytest"]),
        ("import os\nUNDER = os.environ.get('PYTEST_CURRENT_TEST')\n", ["PYTEST_CURRENT_TEST"]),
        ("import sys\nF = sys.modules['_pytest.python'].Function\n", ["_pytest.python"]),
        ("import sys\nR = [a for a in sys.argv if a.startswith('--junitxml=')]\n", ["--junitxml="]),
        ('"""Tested with pytest."""\nSUFFIX = "py"\n', []),
        ("import json\n", []),
    ],
)
def test_code_that_names_the_runner_in_a_string_reaches_into_it(
    source: str, named: list[str]
) -> None:
    assert reaches_into_runner(source) == named
