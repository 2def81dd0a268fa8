"""What the locked tests read, from a real run of pytest in a real git repository: the tests' data
and their helpers are locked, wherever they are; the code under test and what it reads are not,
nor a file the tests wrote and read back (their own output)."""

from __future__ import annotations

import sys
from pathlib import Path

from thoughtforge.core.git_repo import init_repo
from thoughtforge.phases.traceability import criteria
from thoughtforge.plugins.code.acceptance.lock import LockedRead
from thoughtforge.plugins.code.acceptance.reads import (
    changed_reads,
    fingerprints_now,
    locked_reads,
    names_tests,
)
from thoughtforge.plugins.code.acceptance.runner import run_locked
from thoughtforge.plugins.code.acceptance.survey import survey
from thoughtforge.plugins.code.acceptance.verdict import lock_of

CONSTRAINTS = "## Acceptance Criteria\n\n- boiling\n- freezing\n- primes\n"
FILES = {
    "conv.py": (
        "import json\nfrom pathlib import Path\n\n"
        "TABLE = json.loads((Path(__file__).parent / 'table.json').read_text())\n\n\n"
        "def c_to_f(c):\n    return c * TABLE['ratio'] + 32\n"
    ),
    "table.json": '{"ratio": 1.8}\n',
    "primes.py": "def is_prime(n):\n    return n > 1 and all(n % d for d in range(2, n))\n",
    "helpers/__init__.py": "",
    "helpers/checks.py": "def close(a, b):\n    return abs(a - b) < 1e-9\n",
    "testutils/__init__.py": "",
    "testutils/compare.py": "def approx_equal(a, b):\n    return abs(a - b) < 1e-9\n",
    "tests/data/expected.json": '{"boiling": 212}\n',
    "tests/data/freezing.txt": "32\n",
    "tests/test_conv.py": (
        "import json\nfrom pathlib import Path\n\nfrom conv import c_to_f\n"
        "from helpers.checks import close\nfrom primes import is_prime\n"
        "from testutils.compare import approx_equal\n\n"
        "HERE = Path(__file__).parent\n"
        "EXPECTED = json.loads((HERE / 'data' / 'expected.json').read_text())\n\n\n"
        "def test_ac_1_boiling():\n    assert approx_equal(c_to_f(100), EXPECTED['boiling'])\n\n\n"
        "def test_ac_2_freezing():\n    result = c_to_f(0)\n"
        "    assert close(result, float((HERE / 'data' / 'freezing.txt').read_text()))\n\n\n"
        "def test_ac_3_primes():\n    Path('out.txt').write_text('7')\n"
        "    assert is_prime(int(Path('out.txt').read_text()))\n"
    ),
}
NODES = [
    "tests/test_conv.py::test_ac_1_boiling",
    "tests/test_conv.py::test_ac_2_freezing",
    "tests/test_conv.py::test_ac_3_primes",
]


def _locked(project: Path) -> dict[str, LockedRead]:
    init_repo(project)
    for relpath, text in FILES.items():
        (project / relpath).parent.mkdir(parents=True, exist_ok=True)
        (project / relpath).write_text(text)
    ran = run_locked(project, [sys.executable, "-m", "pytest"], NODES, timeout=120)
    assert set(ran.results.values()) == {"passed"}, ran.output_tail
    lock = lock_of(criteria(CONSTRAINTS), survey(project), 3, None)
    return locked_reads(project, ran.reads, lock)


def test_the_tests_data_and_helpers_are_locked_and_the_code_and_its_data_are_not(
    tmp_path: Path,
) -> None:
    locked = _locked(tmp_path)

    assert {path: read.tests for path, read in locked.items()} == {
        "tests/data/expected.json": [],  # read as the module loads: it counts for every test
        "tests/data/freezing.txt": ["tests/test_conv.py::test_ac_2_freezing"],
        "testutils/__init__.py": [],  # a path that names tests
        "testutils/compare.py": [],
        "helpers/checks.py": [],  # judges conv's result in an assert
    }
    now = fingerprints_now(tmp_path, locked)
    assert changed_reads(locked, now, set()) == []

    (tmp_path / "helpers/checks.py").write_text("def close(a, b):\n    return abs(a - b) < 10\n")
    (tmp_path / "tests/data/freezing.txt").unlink()
    (tmp_path / "conv.py").write_text(FILES["conv.py"].replace("+ 32", "+ 30"))
    (tmp_path / "table.json").write_text('{"ratio": 2}\n')
    now = fingerprints_now(tmp_path, locked)
    assert changed_reads(locked, now, set()) == [
        ("helpers/checks.py", "a file the locked tests read was changed"),
        ("tests/data/freezing.txt", "a file the locked tests read was deleted"),
    ]
    freed = {"tests/test_conv.py::test_ac_2_freezing"}  # its criterion was reworded
    assert [path for path, _ in changed_reads(locked, now, freed)] == ["helpers/checks.py"]


def test_a_helpers_comments_are_free_and_a_data_files_bytes_are_not(tmp_path: Path) -> None:
    locked = _locked(tmp_path)
    compare = tmp_path / "testutils/compare.py"
    compare.write_text("# a comment\n" + FILES["testutils/compare.py"])
    (tmp_path / "tests/data/expected.json").write_text('{"boiling":  212}\n')

    now = fingerprints_now(tmp_path, locked)

    assert [path for path, _ in changed_reads(locked, now, set())] == ["tests/data/expected.json"]


def test_a_path_names_tests_by_its_folders_or_its_module() -> None:
    named = ["testutils/compare.py", "test_helpers.py", "src/testing/x.py", "fixtures/a.json"]
    assert all(names_tests(path) for path in named)
    assert not any(names_tests(p) for p in ["conv.py", "latest/conv.py", "contest.py"])
