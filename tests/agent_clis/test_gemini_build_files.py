"""Gemini CLI and build files, through the real CLI against the fake model API.

Headless, gemini-cli (0.61.0) denies every `write_file`/`replace` of a build file (`pyproject.toml`,
`setup.cfg`, `package.json`, `Makefile`…, by name wherever it is): its policy engine
(`packages/core/src/policy/policy-engine.ts`, "Build File Protection") turns an ALLOW into DENY
after all rules are matched, at priority `MAX_SAFE_INTEGER`, in every approval mode. So
ThoughtForge cannot grant the project's own build files, and keeps the halt: these tests hold
that halt to naming the reason, and hold the reason to what the CLI does."""

from __future__ import annotations

import subprocess

import pytest

from tests.agent_clis.conftest import CLI_BIN, Bench, cli_env
from tests.agent_clis.model_answers import Write
from tests.agent_clis.test_real_clis import CODE_BRAIN_DUMP, _halted_agent_failure, _run
from thoughtforge.core.project_log import read_events

pytestmark = pytest.mark.slow

PYPROJECT = '[project]\nname = "calc"\nversion = "0.1.0"\n'


def test_a_gemini_build_that_writes_pyproject_halts_at_once_naming_the_reason(
    bench: Bench,
) -> None:
    bench.api.wander = (Write("pyproject.toml", PYPROJECT),)  # as a model building a package does
    project = _run(bench, "gemini", CODE_BRAIN_DUMP)
    assert not (project / "pyproject.toml").exists()
    reason = _halted_agent_failure(project)
    assert "Modifying build configuration files" in reason, reason  # gemini's own words
    for said in ("policy engine", "no policy file, `--policy` or `--yolo`", "add the file"):
        assert said in reason, reason  # why no grant helps, and what does
    builds = [
        e
        for e in read_events(project)
        if e.get("event") == "agent_call" and e.get("step") == "code-build"
    ]
    assert len(builds) == 1  # no retry: the same write is refused again


def test_no_policy_lifts_geminis_build_file_protection_headless(bench: Bench) -> None:
    """What the halt rests on: an admin-tier policy that allows `write_file`, in `--yolo`,
    is in force (it denies `test_calc.py`), and `pyproject.toml` is still refused. If a later
    Gemini CLI lets a rule through, this fails: grant the project's build files then."""
    folder = bench.tmp_path / "calc"
    folder.mkdir()
    policy = bench.tmp_path / "allow-writes.toml"
    policy.write_text(
        '[[rule]]\ntoolName = "write_file"\ndecision = "allow"\npriority = 998\n\n'
        '[[rule]]\ntoolName = "write_file"\ndecision = "deny"\npriority = 999\n'
        'argsPattern = "test_calc"\n'
    )
    bench.api.wander = (Write("pyproject.toml", PYPROJECT),)
    env = cli_env(bench.tmp_path / "home", "gemini", bench.api, bench.prefect_api_url)
    flags = ["--skip-trust", "-p", "", "-o", "json", "--approval-mode", "yolo"]
    gemini = subprocess.run(
        [str(CLI_BIN / "gemini"), *flags, "--admin-policy", str(policy)],
        input="# Code build\n\nBuild calc.\n",
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert sorted(p.name for p in folder.iterdir()) == ["calc.py"], gemini.stderr
    assert "Modifying build configuration files" in gemini.stderr, gemini.stderr
