"""The code plugin's test runner: real runners on tiny projects built in tmp_path, and the output
parsers on output captured from real runs (or, for runners not installed here, written to match
their documented format, and labelled so)."""

from __future__ import annotations

import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from tests.process_checks import ends_within
from thoughtforge.config import default_test_commands
from thoughtforge.plugins.code.suite_run import TAIL_CHARS, detect_language, run_tests
from thoughtforge.plugins.code.test_output import read_output

COMMANDS = default_test_commands()
# The configured pytest command, run by this interpreter (the system `python` may lack pytest).
PYTEST = [sys.executable, *COMMANDS["python"][1:]]
CARGO = shutil.which("cargo") or shutil.which("cargo", path=str(Path.home() / ".cargo" / "bin"))
needs_npm = pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")


def project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    return root


@pytest.fixture(autouse=True)
def _no_plugins_of_this_venv(monkeypatch: pytest.MonkeyPatch) -> None:
    """The projects' pytest runs in this venv, whose plugins (Prefect's among them) a real
    project would not have: loading them would double the time of every run."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


# --- pytest ------------------------------------------------------------------------------------

CALC_TESTS = """
    def test_adds():
        assert 1 + 1 == 2

    def test_subtracts():
        assert 2 - 1 == 1

    def test_multiplies():
        assert 2 * 2 == 5, "wrong product"
"""


def test_pytest_counts_and_names_the_failing_test(tmp_path: Path) -> None:
    run = run_tests(project(tmp_path, {"test_calc.py": CALC_TESTS}), PYTEST, timeout=60)
    assert (run.runner, run.total, run.passed, run.failed) == ("pytest", 3, 2, 1)
    assert run.failing == ["test_calc.py::test_multiplies"]
    assert run.exit_code == 1
    assert not run.crashed
    assert not run.succeeded
    assert "wrong product" in run.output_tail


def test_pytest_all_passing_is_a_success(tmp_path: Path) -> None:
    files = {"test_calc.py": CALC_TESTS.replace("== 5", "== 4")}
    run = run_tests(project(tmp_path, files), PYTEST, timeout=60)
    assert (run.total, run.passed, run.failed, run.failing) == (3, 3, 0, [])
    assert run.succeeded


def test_pytest_errors_in_fixtures_count_as_failures(tmp_path: Path) -> None:
    files = {
        "test_db.py": """
            import pytest

            @pytest.fixture
            def db():
                raise RuntimeError("no database")

            def test_reads(db):
                pass

            def test_plain():
                pass
        """
    }
    run = run_tests(project(tmp_path, files), PYTEST, timeout=60)
    assert (run.total, run.passed, run.failed) == (2, 1, 1)
    assert run.failing == ["test_db.py::test_reads"]
    assert not run.crashed


def test_a_collection_error_is_a_crash(tmp_path: Path) -> None:
    files = {"test_calc.py": CALC_TESTS, "test_broken.py": "import no_such_module\n"}
    run = run_tests(project(tmp_path, files), PYTEST, timeout=60)
    assert run.crashed
    assert run.crash_reason == "pytest stopped early: 1 error during collection"
    assert run.exit_code == 2
    assert "no_such_module" in run.output_tail


def test_no_tests_is_a_crash(tmp_path: Path) -> None:
    run = run_tests(project(tmp_path, {"calc.py": "X = 1\n"}), PYTEST, timeout=60)
    assert run.crash_reason == "no tests ran"
    assert run.exit_code == 5


def test_a_pytest_usage_error_is_a_crash(tmp_path: Path) -> None:
    run = run_tests(project(tmp_path, {"test_calc.py": CALC_TESTS}), [*PYTEST, "--bogus"], 60)
    assert run.crash_reason is not None
    assert run.crash_reason.startswith("pytest usage error:")
    assert "--bogus" in run.crash_reason


def test_pytest_under_make_is_read_as_pytest_despite_makes_exit_code(tmp_path: Path) -> None:
    """make exits 2 when pytest exits 1: the failures are read from pytest's own output."""
    recipe = " ".join(PYTEST)
    files = {"Makefile": f"test:\n\t{recipe}\n", "test_calc.py": CALC_TESTS}
    run = run_tests(project(tmp_path, files), COMMANDS["make"], timeout=60)
    assert (run.runner, run.failed, run.exit_code) == ("pytest", 1, 2)
    assert run.failing == ["test_calc.py::test_multiplies"]
    assert not run.crashed


# --- node --------------------------------------------------------------------------------------

NODE_TESTS = """
    const test = require("node:test");
    const assert = require("node:assert");

    test("adds", () => assert.strictEqual(1 + 1, 2));
    test("multiplies", () => assert.strictEqual(2 * 2, FOUR));
    test.describe("strings", () => {
      test.it("joins", () => assert.strictEqual("a" + "b", "ab"));
      test.it("splits", () => assert.deepStrictEqual("a,b".split(","), ["a", "c"]));
    });
"""


def node_project(root: Path, script: str, four: str) -> Path:
    package = f'{{"name": "calc", "version": "1.0.0", "scripts": {{"test": "{script}"}}}}\n'
    tests = NODE_TESTS.replace("FOUR", four)
    return project(root, {"package.json": package, "test/calc.test.js": tests})


@needs_npm
def test_npm_test_running_node_test_counts_and_names_the_failures(tmp_path: Path) -> None:
    run = run_tests(node_project(tmp_path, "node --test", four="5"), COMMANDS["node"], 60)
    assert (run.runner, run.total, run.passed, run.failed) == ("node", 4, 2, 2)
    assert run.failing == ["multiplies", "splits"]  # not the suite "strings" they fail
    assert run.exit_code == 1
    assert not run.crashed


@needs_npm
def test_npm_test_running_node_test_all_passing(tmp_path: Path) -> None:
    root = node_project(tmp_path, "node --test", four="4")
    (root / "test" / "calc.test.js").write_text(
        (root / "test" / "calc.test.js").read_text().replace('"c"]', '"b"]')
    )
    run = run_tests(root, COMMANDS["node"], 60)
    assert (run.total, run.passed, run.failed, run.failing) == (4, 4, 0, [])
    assert run.succeeded


@needs_npm
def test_node_spec_reporter_is_read_too(tmp_path: Path) -> None:
    """Newer Node versions print the spec reporter even into a pipe."""
    root = node_project(tmp_path, "node --test --test-reporter=spec", four="5")
    run = run_tests(root, COMMANDS["node"], 60)
    assert (run.runner, run.total, run.passed, run.failed) == ("node", 4, 2, 2)
    assert run.failing == ["multiplies", "splits"]


# --- make and anything else --------------------------------------------------------------------


def test_make_test_with_a_plain_closing_line(tmp_path: Path) -> None:
    makefile = "test:\n\t@echo running the suite\n\t@echo '3 passed, 1 failed'\n\t@exit 1\n"
    run = run_tests(project(tmp_path, {"Makefile": makefile}), COMMANDS["make"], timeout=30)
    assert (run.runner, run.total, run.passed, run.failed) == ("plain", 4, 3, 1)
    assert run.failing == []
    assert run.note == "the output names no failing tests"
    assert run.exit_code == 2  # make's own code for a failed recipe
    assert not run.crashed


def test_output_without_a_summary_is_a_failed_run_with_only_the_exit_code(tmp_path: Path) -> None:
    run = run_tests(tmp_path, ["sh", "-c", "echo something went wrong; exit 3"], timeout=30)
    assert (run.runner, run.total, run.failed, run.failing) == (None, 0, 0, [])
    assert run.exit_code == 3
    assert not run.crashed
    assert not run.succeeded
    assert run.note == "no test summary recognised in the output: only the exit code (3) is known"


def test_a_non_zero_exit_with_nothing_failed_is_a_crash(tmp_path: Path) -> None:
    run = run_tests(tmp_path, ["sh", "-c", "echo '2 passed'; exit 1"], timeout=30)
    assert (run.passed, run.failed) == (2, 0)
    assert run.crash_reason == "exited with code 1 although no test failed"


def test_the_suite_runs_in_the_project_directory_with_stdin_closed(tmp_path: Path) -> None:
    script = "import os, sys; print(os.getcwd(), repr(sys.stdin.read())); print('1 passed')"
    run = run_tests(tmp_path, [sys.executable, "-c", script], timeout=30)
    assert f"{tmp_path.resolve()} ''" in run.output_tail
    assert run.succeeded


def test_a_project_relative_command_is_found_in_the_project(tmp_path: Path) -> None:
    script = project(tmp_path, {"run-tests.sh": "#!/bin/sh\necho '1 passed'\n"}) / "run-tests.sh"
    script.chmod(0o755)
    assert run_tests(tmp_path, ["./run-tests.sh"], timeout=30).passed == 1


# --- cargo -------------------------------------------------------------------------------------


@pytest.mark.skipif(CARGO is None, reason="cargo is not installed")
def test_cargo_test_counts_and_names_the_failing_test(tmp_path: Path) -> None:
    """A crate without dependencies: cargo needs no network. Compiling takes a few seconds."""
    files = {
        "Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
        "src/lib.rs": """
            pub fn add(a: i32, b: i32) -> i32 { a + b }

            #[cfg(test)]
            mod tests {
                use super::*;
                #[test] fn adds() { assert_eq!(add(1, 2), 3); }
                #[test] fn adds_wrong() { assert_eq!(add(2, 2), 5); }
            }
        """,
    }
    assert CARGO is not None
    run = run_tests(project(tmp_path, files), [CARGO, *COMMANDS["rust"][1:], "--offline"], 120)
    assert (run.runner, run.total, run.passed, run.failed) == ("cargo", 2, 1, 1)
    assert run.failing == ["tests::adds_wrong"]
    assert run.exit_code == 101
    assert not run.crashed


CARGO_ALL_PASSING = """\
   Compiling rs v0.1.0 (/tmp/tr/rs)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.37s
     Running unittests src/lib.rs (target/debug/deps/rs-a35a48c092d3f767)

running 4 tests
test tests::adds ... ok
test tests::adds_more ... ok
test tests::adds_wrong ... ok
test tests::slow ... ignored

test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s

     Running tests/it.rs (target/debug/deps/it-f79ac83c53990106)

running 1 test
test integration_ok ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

   Doc-tests rs

running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s
"""

CARGO_NOT_COMPILING = """\
   Compiling rs v0.1.0 (/tmp/tr/rs)
error[E0308]: mismatched types
  --> src/lib.rs:10:26
   |
10 | pub fn broken() -> i32 { "x" }
   |                    ---   ^^^ expected `i32`, found `&str`

For more information about this error, try `rustc --explain E0308`.
error: could not compile `rs` (lib) due to 1 previous error
warning: build failed, waiting for other jobs to finish...
error: could not compile `rs` (lib test) due to 1 previous error
"""


def test_cargo_results_of_every_test_binary_are_summed() -> None:
    """Output captured from a real `cargo test` (cargo 1.95): unit, integration and doc tests."""
    tally = read_output(CARGO_ALL_PASSING)
    assert tally is not None
    assert (tally.runner, tally.total, tally.passed, tally.failed) == ("cargo", 5, 4, 0)


def test_a_crate_that_does_not_compile_is_a_crash() -> None:
    """Output captured from a real `cargo test` (cargo 1.95)."""
    tally = read_output(CARGO_NOT_COMPILING)
    assert tally is not None
    assert tally.crash_reason == "crate rs does not compile"


# --- go (not installed here: outputs written to go test's documented format) -------------------

GO_WITHOUT_V = (
    "--- FAIL: TestAdd (0.00s)\n"
    "    calc_test.go:9: Add(2, 2) = 5, want 4\n"
    "--- FAIL: TestDivide (0.00s)\n"
    "    --- FAIL: TestDivide/by_zero (0.00s)\n"
    "        calc_test.go:21: expected an error\n"
    "FAIL\n"
    "FAIL\texample.com/calc\t0.002s\n"
    "ok  \texample.com/calc/format\t0.001s\n"
    "?   \texample.com/calc/cmd\t[no test files]\n"
    "FAIL\n"
)

GO_WITH_V = (
    "=== RUN   TestAdd\n"
    "--- PASS: TestAdd (0.00s)\n"
    "=== RUN   TestDivide\n"
    "=== RUN   TestDivide/by_zero\n"
    "    calc_test.go:21: expected an error\n"
    "--- FAIL: TestDivide (0.00s)\n"
    "    --- FAIL: TestDivide/by_zero (0.00s)\n"
    "=== RUN   TestRound\n"
    "    calc_test.go:30: not on this platform\n"
    "--- SKIP: TestRound (0.00s)\n"
    "FAIL\n"
    "FAIL\texample.com/calc\t0.002s\n"
    "FAIL\n"
)

GO_NOT_BUILDING = (
    "# example.com/calc [example.com/calc.test]\n"
    "./calc_test.go:5:9: undefined: Mul\n"
    "FAIL\texample.com/calc [build failed]\n"
    "FAIL\n"
)


def test_go_without_v_counts_only_the_failing_tests_and_says_so() -> None:
    tally = read_output(GO_WITHOUT_V)
    assert tally is not None
    assert (tally.runner, tally.total, tally.passed, tally.failed) == ("go", 2, 0, 2)
    assert tally.failing == ["TestAdd", "TestDivide"]  # top-level tests, as counted
    assert tally.note is not None
    assert "-v" in tally.note
    assert "1 passing package" in tally.note


def test_go_with_v_counts_every_top_level_test() -> None:
    tally = read_output(GO_WITH_V)
    assert tally is not None
    assert (tally.total, tally.passed, tally.failed, tally.failing) == (3, 1, 1, ["TestDivide"])
    assert tally.note is None


def test_a_go_package_that_does_not_build_is_a_crash() -> None:
    tally = read_output(GO_NOT_BUILDING)
    assert tally is not None
    assert tally.crash_reason == "package example.com/calc does not build"


# --- Jest (not installed here: output written to Jest's default reporter format) --------------

JEST_OUTPUT = """\
PASS src/format.test.js
FAIL src/calc.test.js
  ● Calculator › adds numbers

    expect(received).toBe(expected) // Object.is equality

    Expected: 4
    Received: 5

      3 | describe("Calculator", () => {
      4 |   test("adds numbers", () => {
    > 5 |     expect(add(2, 2)).toBe(4);
        |                       ^

      at Object.toBe (src/calc.test.js:5:23)

  ● Console

    console.log
      computing

  ● divides by zero

    thrown: "boom"

Test Suites: 1 failed, 1 passed, 2 total
Tests:       2 failed, 3 passed, 5 total
Snapshots:   0 total
Time:        0.612 s
Ran all test suites.
"""

JEST_SUITE_NOT_RUNNING = """\
FAIL src/calc.test.js
  ● Test suite failed to run

    Cannot find module './calc' from 'src/calc.test.js'

Test Suites: 1 failed, 1 total
Tests:       0 total
Snapshots:   0 total
Time:        0.3 s
"""


def test_jest_counts_and_names_failures_but_not_console_blocks() -> None:
    tally = read_output(JEST_OUTPUT)
    assert tally is not None
    assert (tally.runner, tally.total, tally.passed, tally.failed) == ("jest", 5, 3, 2)
    assert tally.failing == ["Calculator › adds numbers", "divides by zero"]
    assert tally.crash_reason is None


def test_a_jest_suite_that_failed_to_run_is_a_crash() -> None:
    tally = read_output(JEST_SUITE_NOT_RUNNING)
    assert tally is not None
    assert tally.crash_reason == "a test suite failed to run"


# --- Format detection and colour ---------------------------------------------------------------


def test_a_pytest_summary_is_not_mistaken_for_the_plain_format() -> None:
    tally = read_output("\x1b[31mFAILED test_a.py::test_x - assert 0\x1b[0m\n1 failed in 0.01s\n")
    assert tally is not None
    assert (tally.runner, tally.failing) == ("pytest", ["test_a.py::test_x"])


def test_tap_ok_lines_are_not_taken_for_go_packages() -> None:
    tap = "TAP version 13\nok 1 - adds\nnot ok 2 - splits\n1..2\n# tests 2\n# pass 1\n# fail 1\n"
    tally = read_output(tap)
    assert tally is not None
    assert (tally.runner, tally.failing) == ("node", ["splits"])


# --- A suite that misbehaves ---------------------------------------------------------------------


def test_a_missing_command_is_a_crash_that_names_it(tmp_path: Path) -> None:
    run = run_tests(tmp_path, ["no-such-test-runner", "--all"], timeout=30)
    assert run.crash_reason == "command not found: no-such-test-runner"
    assert run.exit_code is None


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ([sys.executable, "-S", "-m", "pytest"], "No module named pytest"),
        (["make", "test"], "make: *** No rule to make target 'test'.  Stop."),
    ],
    ids=["python-without-pytest", "make-without-target"],
)
def test_a_runner_that_never_started_is_told_by_the_outputs_last_line(
    tmp_path: Path, command: list[str], said: str
) -> None:
    run = run_tests(tmp_path, command, timeout=30)
    assert run.start_failure == said
    assert run.crashed
    assert run.total == 0


def test_a_suite_failing_on_a_missing_module_of_its_own_started_its_runner(
    tmp_path: Path,
) -> None:
    """The runner ran and reported the error: the suite is to fix, not the command."""
    (tmp_path / "test_a.py").write_text("import nowhere\n\ndef test_a():\n    pass\n")
    run = run_tests(tmp_path, [sys.executable, "-m", "pytest"], timeout=60)
    assert run.start_failure is None
    assert run.runner == "pytest"


def test_a_suite_past_its_timeout_is_killed_with_its_children(tmp_path: Path) -> None:
    suite = "sleep 60 & echo $! > child.pid; wait"
    run = run_tests(tmp_path, ["sh", "-c", suite], timeout=1)
    assert run.crashed
    assert run.crash_reason is not None
    assert run.crash_reason.startswith("timed out after 1 s")
    assert run.exit_code is None
    assert ends_within(int((tmp_path / "child.pid").read_text()))


def test_a_flood_of_output_on_stderr_is_capped_and_the_suite_stopped(tmp_path: Path) -> None:
    flood = (
        "import sys\n"
        "for _ in range(20):\n"
        "    sys.stderr.write('x' * 1_000_000 + '\\n'); sys.stderr.flush()\n"
        "open('finished', 'w').close()\n"
    )
    run = run_tests(tmp_path, [sys.executable, "-c", flood], timeout=60)
    assert run.crash_reason is not None
    assert run.crash_reason.startswith("printed more than 5,000,000 bytes")
    assert not (tmp_path / "finished").exists()  # stopped at the cap, not read to the end
    assert len(run.output_tail) == TAIL_CHARS


def test_a_suite_killed_by_a_signal_is_a_crash(tmp_path: Path) -> None:
    script = "import os, signal; print('1 passed'); os.kill(os.getpid(), signal.SIGSEGV)"
    run = run_tests(tmp_path, [sys.executable, "-c", script], timeout=30)
    assert run.crash_reason is not None
    assert run.crash_reason.startswith("killed by signal 11")


# --- Language detection ------------------------------------------------------------------------


def spec(structure: str) -> str:
    overview = "## Deliverable Overview\n\nA Rust-free calculator.\n\n"
    return f"{overview}## Deliverable Structure\n\n{structure}\n"


@pytest.mark.parametrize(
    ("structure", "language"),
    [
        ("- Language: Python 3.12\n- Tests: pytest", "python"),
        ("A TypeScript CLI built with esbuild.", "node"),
        ("- Framework: Express\n- Language: Node.js 20", "node"),
        ("A small Golang service.", "go"),
        ("A service in Go, with a Makefile.", "go"),
        ("A Rust crate.", "rust"),
        ("- Fixtures from a Python script\n- Language: Rust", "rust"),  # the "language" line first
        ("- Make targets for everything\n- Language: Python", "python"),
        ("Anything goes.", None),
    ],
)
def test_the_spec_names_the_language(tmp_path: Path, structure: str, language: str | None) -> None:
    assert detect_language(spec(structure), tmp_path, COMMANDS) == language


def test_only_the_deliverable_structure_section_is_read(tmp_path: Path) -> None:
    """The overview above mentions Rust; the structure section does not name a language."""
    assert detect_language(spec("A command-line tool."), tmp_path, COMMANDS) is None


def test_a_configured_language_is_found_by_its_name(tmp_path: Path) -> None:
    commands = {**COMMANDS, "ruby": ["bundle", "exec", "rake", "test"]}
    assert detect_language(spec("- Language: Ruby 3.3"), tmp_path, commands) == "ruby"


@pytest.mark.parametrize(
    ("files", "language"),
    [
        ({"pyproject.toml": "[project]\nname = 'x'\n"}, "python"),
        ({"setup.py": ""}, "python"),
        ({"pytest.ini": "[pytest]\n"}, "python"),
        ({"package.json": "{}"}, "node"),
        ({"Cargo.toml": "[package]\n"}, "rust"),
        ({"go.mod": "module example.com/x\n"}, "go"),
        ({"Makefile": ".PHONY: test\ntest: build\n\t./run\n"}, "make"),
        ({"Makefile": ".PHONY: test\nbuild:\n\tcc x.c\n"}, None),  # no test target
        ({"Makefile": "test := yes\nall:\n\techo $(test)\n"}, None),  # a variable, not a target
    ],
)
def test_the_files_name_the_language(
    tmp_path: Path, files: dict[str, str], language: str | None
) -> None:
    assert detect_language("", project(tmp_path, files), COMMANDS) == language


def test_the_files_win_over_the_spec(tmp_path: Path) -> None:
    root = project(tmp_path, {"package.json": "{}"})
    assert detect_language(spec("- Language: Python"), root, COMMANDS) == "node"


def test_the_spec_settles_files_that_name_several_languages(tmp_path: Path) -> None:
    root = project(tmp_path, {"pyproject.toml": "", "Makefile": "test:\n\tpytest\n"})
    assert detect_language(spec("Build with make."), root, COMMANDS) == "make"
    assert detect_language("", root, COMMANDS) == "python"


def test_only_languages_with_a_command_are_detected(tmp_path: Path) -> None:
    root = project(tmp_path, {"go.mod": "module x\n"})
    commands = {"python": COMMANDS["python"]}
    assert detect_language(spec("- Language: Python"), root, commands) == "python"
