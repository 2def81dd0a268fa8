"""The locked tests' second run, outside pytest, with a real pytest and a real interpreter: an
honest test passes both ways (pytest's helpers, `tmp_path` and `monkeypatch`, fixtures of the
module and of a conftest, parametrised cases, classes, a package of tests); code that answers
right only under pytest, only to a caller named `test*`, or with an `==` of its own fails
outside it, and ThoughtForge's run says why."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from thoughtforge.plugins.code.acceptance.runner import run_locked

PROGRAM = [sys.executable, "-m", "pytest"]

HONEST = {
    "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
    "src/app/__init__.py": "",
    "src/app/conv.py": (
        "import enum\nimport warnings\nfrom dataclasses import dataclass\n\n\n"
        "class Scale(enum.IntEnum):\n    CELSIUS = 1\n\n\n"
        "@dataclass\nclass Reading:\n    degrees: float\n\n\n"
        "def c_to_f(c):\n    return c * 1.8 + 32\n\n\n"
        "def reading(c):\n    return Reading(c)\n\n\n"
        "def old(c):\n    warnings.warn('old', DeprecationWarning)\n    return c\n\n\n"
        "def strict(c):\n    if c < -273.15:\n        raise ValueError('below absolute zero')\n"
        "    return c\n"
    ),
    "tests/__init__.py": "",
    "tests/conftest.py": (
        "import os\n\nimport pytest\n\nos.environ['THERMO_MODE'] = 'test'\n\n\n"
        "@pytest.fixture(scope='session')\ndef boiling_c():\n    return 100\n\n\n"
        "@pytest.fixture\ndef log():\n    lines = []\n    yield lines\n    lines.clear()\n\n\n"
        "@pytest.fixture(autouse=True)\ndef units(monkeypatch):\n"
        "    monkeypatch.setenv('UNITS', 'metric')\n"
    ),
    "tests/helpers.py": "BOILING = 212\n",
    "tests/test_conv.py": (
        "import os\nimport unittest\n\nimport pytest\n\n"
        "from app.conv import Reading, Scale, c_to_f, old, reading, "
        "strict\n\nfrom .helpers import BOILING\n\n\n"
        "def test_ac_1_plain():\n    assert c_to_f(100) == BOILING\n    assert c_to_f(100) != 200\n"
        "    assert Scale.CELSIUS == 1\n    assert reading(3) == Reading(3)\n"
        "    assert os.environ['THERMO_MODE'] == 'test'\n\n\n"
        "def test_ac_2_pytest_helpers():\n    assert c_to_f(37) == pytest.approx(98.6)\n"
        "    with pytest.raises(ValueError, match='absolute'):\n        strict(-300)\n"
        "    with pytest.warns(DeprecationWarning):\n        assert old(1) == 1\n\n\n"
        "def test_ac_3_fixtures(tmp_path, monkeypatch):\n    monkeypatch.setenv('UNIT', 'F')\n"
        "    (tmp_path / 'out.txt').write_text(str(c_to_f(0)))\n"
        "    assert (tmp_path / 'out.txt').read_text() == '32.0'\n\n\n"
        "@pytest.mark.parametrize('c', [0, 100])\n"
        "@pytest.mark.parametrize(('f', 'unit'), [(32, 'F'), pytest.param(212, 'F', id='x')])\n"
        "def test_ac_4_cases(c, f, unit):\n    assert c_to_f(c) == f or c_to_f(c) != f\n\n\n"
        "class TestFive:\n    def test_ac_5_in_a_class(self):\n        assert c_to_f(0) == 32\n\n\n"
        "def test_ac_6_captured(capsys):\n    print(c_to_f(0))\n"
        "    assert capsys.readouterr().out == '32.0\\n'\n\n\n"
        "class TestEight(unittest.TestCase):\n    def setUp(self):\n        self.c = 100\n\n"
        "    def test_ac_8_unittest(self):\n        self.assertEqual(c_to_f(self.c), 212)\n\n\n"
        "@pytest.fixture\ndef converter(boiling_c):\n    return lambda: c_to_f(boiling_c)\n\n\n"
        "def test_ac_7_fixtures(converter, log):\n    log.append(converter())\n"
        "    assert log == [212.0]\n    assert os.environ['UNITS'] == 'metric'\n"
    ),
}


def _write(project: Path, files: dict[str, str]) -> None:
    for relpath, text in files.items():
        (project / relpath).parent.mkdir(parents=True, exist_ok=True)
        (project / relpath).write_text(text)


def test_an_honest_suite_passes_both_ways(tmp_path: Path) -> None:
    _write(tmp_path, HONEST)
    nodes = [f"tests/test_conv.py::test_ac_{n}" for n in ("1_plain", "2_pytest_helpers")]
    nodes += [f"tests/test_conv.py::test_ac_{n}" for n in ("3_fixtures", "4_cases", "6_captured")]
    nodes.append("tests/test_conv.py::test_ac_7_fixtures")
    nodes.append("tests/test_conv.py::TestEight::test_ac_8_unittest")
    nodes.append("tests/test_conv.py::TestFive::test_ac_5_in_a_class")

    run = run_locked(tmp_path, PROGRAM, nodes, timeout=120)

    assert run.results == dict.fromkeys(nodes, "passed"), (run.outside, run.output_tail)
    assert run.outside == {}
    assert run.unchecked == {
        "tests/test_conv.py::test_ac_6_captured": "it needs the fixture capsys"
    }


GAMED = {
    "variable-in-pieces": "os.environ.get('PYTE' + 'ST_CURRENT_TEST')",
    "pytest-version-variable": "any(k.startswith('PYTE' + 'ST_') for k in os.environ)",
    "caller-named-test": "sys._getframe(1).f_code.co_name.startswith('test')",
    "caller-module-named-test": "sys._getframe(1).f_globals['__name__'].startswith('test')",
    "caller-file-named-test": "os.path.basename(sys._getframe(1).f_code.co_filename)"
    ".startswith('test')",
    "runner-frames-on-the-stack": "any('py' + 'test' in f.filename for f in inspect.stack())",
    "runner-modules-loaded": "any(m.startswith('_py' + 'test') for m in list(sys.modules))",
    "runner-module-at-import": "AT_IMPORT",
    "runner-in-argv": "'py' + 'test' in ' '.join(sys.argv)",
}
CODE = (
    "import inspect\nimport os\nimport sys\n\n"
    "AT_IMPORT = any(m.startswith('_py' + 'test') for m in list(sys.modules))\n\n\n"
    "class Reading(float):\n    def __eq__(self, other):\n"
    "        return abs(float(self) - other) < 10\n\n    __ne__ = lambda self, other: False\n\n"
    "    __hash__ = float.__hash__\n\n\n"
    "class Count(int):\n    def __eq__(self, other):\n        return True\n\n"
    "    __hash__ = int.__hash__\n\n\n"
    "class Loose:\n    def __eq__(self, other):\n        return abs(203 - other) < 10\n\n\n"
    + "".join(
        f"def {name.replace('-', '_')}(c):\n    return c * 1.8 + (32 if {test} else 23)\n\n\n"
        for name, test in GAMED.items()
    )
    + "def subclass(c):\n    return Reading(c * 1.8 + 23)\n\n\n"
    "def int_subclass(c):\n    return Count(7)\n\n\n"
    "def no_number(c):\n    return Loose()\n\n\n"
    "def in_a_list(c):\n    return [Reading(c * 1.8 + 23)]\n"
)
JUDGED = {
    "subclass": "assert subclass(100) == 212",
    "subclass-not-equal": "assert not (subclass(100) != 212)",
    "int-subclass": "assert int_subclass(100) == 212",
    "no-number": "assert no_number(100) == 212",
    "in-a-list": "assert in_a_list(100) == [212]",
}


def test_code_that_tells_the_locked_run_apart_fails_outside_pytest_and_says_why() -> None:
    """In a folder of its own: pytest's `tmp_path` has "pytest" in its name, and so would the
    stack of the code under test."""
    with tempfile.TemporaryDirectory(prefix="thermometer-") as folder:
        _tells_the_run_apart(Path(folder))


def _tells_the_run_apart(tmp_path: Path) -> None:
    tests = "import unittest\n\nimport pytest\n\nfrom thermo import *  # noqa\n\n\n" + "".join(
        f"def test_ac_{n}_{name.replace('-', '_')}():\n    assert {name.replace('-', '_')}(100)"
        " == 212\n\n\n"
        for n, name in enumerate(GAMED, start=1)
    )
    tests += "".join(
        f"def test_ac_{n}_{name.replace('-', '_')}():\n    {line}\n\n\n"
        for n, (name, line) in enumerate(JUDGED.items(), start=len(GAMED) + 1)
    )
    tests += (
        "class TestGamed(unittest.TestCase):\n"
        f"    def test_ac_{len(GAMED) + len(JUDGED) + 2}_unittest(self):\n"
        "        self.assertEqual(caller_named_test(100), 212)\n\n\n"
        "@pytest.fixture\ndef hundred():\n    yield 100\n\n\n"
        f"def test_ac_{len(GAMED) + len(JUDGED) + 1}_with_a_fixture(hundred):\n"
        "    assert variable_in_pieces(hundred) == 212\n"
    )
    _write(tmp_path, {"thermo.py": CODE, "test_thermo.py": tests})
    nodes = [f"test_thermo.py::test_ac_{n}_{m.replace('-', '_')}" for n, m in _numbered()]
    nodes.append(f"test_thermo.py::test_ac_{len(nodes) + 1}_with_a_fixture")
    nodes.append(f"test_thermo.py::TestGamed::test_ac_{len(nodes) + 1}_unittest")

    run = run_locked(tmp_path, PROGRAM, nodes, timeout=120)

    assert f"{len(nodes)} passed in" in run.output_tail, "pytest passes them all"
    assert run.results == dict.fromkeys(nodes, "failed"), run.outside
    for node in nodes[:-1]:
        assert " at line " in run.outside[node], run.outside[node]
    assert "AssertionError" in run.outside[nodes[-1]], run.outside[nodes[-1]]
    variable = run.outside["test_thermo.py::test_ac_1_variable_in_pieces"]
    assert variable.endswith("assert variable_in_pieces(100) == 212"), variable
    loose = run.outside[f"test_thermo.py::test_ac_{len(GAMED) + 4}_no_number"]
    assert "the result is a Loose, a class of the project's own" in loose, loose


def _numbered() -> list[tuple[int, str]]:
    return list(enumerate([*GAMED, *JUDGED], start=1))
