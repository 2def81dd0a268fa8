from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from thoughtforge.config import (
    Config,
    load_config,
)


def test_code_defaults_give_every_language_its_standard_test_command(config: Config) -> None:
    assert config.code.test_commands == {
        "python": ["python", "-m", "pytest", "-q", "-rfE"],
        "node": ["npm", "test", "--silent"],
        "make": ["make", "test"],
        "rust": ["cargo", "test"],
        "go": ["go", "test", "./..."],
    }
    assert (config.code.test_timeout_seconds, config.code.max_step_attempts) == (600, 3)


def test_test_commands_in_the_file_add_to_or_replace_the_defaults(
    write_config: Callable[..., Path],
) -> None:
    commands = {"ruby": ["bundle", "exec", "rake", "test"], "python": ["pytest", "-x"]}
    config = load_config(write_config(code={"test_commands": commands}))
    assert config.code.test_commands["ruby"] == ["bundle", "exec", "rake", "test"]
    assert config.code.test_commands["python"] == ["pytest", "-x"]
    assert config.code.test_commands["rust"] == ["cargo", "test"]  # the others kept
