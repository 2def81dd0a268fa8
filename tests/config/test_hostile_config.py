"""A config.yaml written to hurt, as `thoughtforge status` meets it: an alias bomb, a value of
megabytes, numbers past any float, a prompts folder that is a link loop, a device for a file.
Each is one short error and exit code 1, in bounded time and memory."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO_ROOT, config_data

MAX_ERROR_CHARS = 2_000


def _status(tmp_path: Path, config: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "COLUMNS": "200"}
    env["PYTHONPATH"] = str(REPO_ROOT)
    return subprocess.run(
        [sys.executable, "-m", "thoughtforge", "--config", str(config), "status"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def _refused(tmp_path: Path, config: Path) -> str:
    started = time.monotonic()
    result = _status(tmp_path, config)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr) < MAX_ERROR_CHARS, f"{len(result.stderr):,} characters"
    assert time.monotonic() - started < 60
    return " ".join(result.stderr.split())


def test_a_yaml_alias_bomb_in_an_agents_flags_is_refused_before_it_expands(
    tmp_path: Path,
) -> None:
    levels = ["&a0 [x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 8):  # 9**8 values once expanded, in some 300 bytes
        levels.append(f"&a{level} [" + ", ".join([f"*a{level - 1}"] * 9) + "]")
    data = config_data(tmp_path)
    data["agents"]["available"]["recorder"]["flags"] = ["BOMB"]
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(data).replace("- BOMB", f"- [{', '.join(levels)}]"))
    said = _refused(tmp_path, path)
    assert "aliases" in said and "more than 100,000 values" in said


def test_an_alias_in_a_config_is_still_read(tmp_path: Path) -> None:
    data = config_data(tmp_path)
    path = tmp_path / "config.yaml"
    text = yaml.safe_dump(data).replace("budget:", "budget: &shared", 1)
    path.write_text(text)
    assert _status(tmp_path, path).returncode == 0


def test_a_megabytes_long_wrong_value_is_quoted_as_a_short_excerpt(tmp_path: Path) -> None:
    data = config_data(tmp_path)
    data["agents"]["call_timeout_seconds"] = "9" * 400_000 + "x"
    data["concurrency"] = {"max_parallel_runs": ["y" * 100_000] * 4}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(data, width=10**9))
    said = _refused(tmp_path, path)
    assert "agents.call_timeout_seconds" in said and "concurrency.max_parallel_runs" in said


def test_a_config_over_its_cap_or_no_regular_file_is_refused_unread(tmp_path: Path) -> None:
    big = tmp_path / "config.yaml"
    big.write_text("# " + "x" * (2 * 1024 * 1024) + "\n")
    assert "over its cap" in _refused(tmp_path, big)
    assert "not a regular file" in _refused(tmp_path, Path("/dev/zero"))


@pytest.mark.parametrize(
    ("section", "key", "value"),
    [
        ("budget", "max_usd", "1e309"),
        ("budget", "max_usd", ".nan"),
        ("budget", "max_usd", "2000000"),  # the bound `budget --usd` and the page keep
        ("polish", "min_issues_resolved_per_usd", "1e309"),
        ("agents", "call_timeout_seconds", ".inf"),
    ],
)
def test_numbers_past_any_float_and_over_the_bounds_are_refused(
    tmp_path: Path, section: str, key: str, value: str
) -> None:
    data = config_data(tmp_path)
    data.setdefault(section, {})[key] = "PLACEHOLDER"
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(data).replace("PLACEHOLDER", value))
    said = _refused(tmp_path, path)
    assert f"{section}.{key}" in said


def test_a_prompts_folder_that_is_a_link_loop_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "loop-a").symlink_to(tmp_path / "loop-b")
    (tmp_path / "loop-b").symlink_to(tmp_path / "loop-a")
    data = config_data(tmp_path)
    data["prompts"] = {"directory": str(tmp_path / "loop-a")}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(data))
    assert "prompts.directory" in _refused(tmp_path, path)
