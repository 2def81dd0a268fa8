"""Reading `config.yaml`: parsed, validated once at start-up, relative paths resolved against
the directory holding the file (not the current directory); a missing file is copied from the
example beside it.

A process parses a file's text once: the CLI's command and the flow it runs in the same process
(`flows.runtime.run_opening`) each load the config, and the second is handed a copy of the first's
parse while the file still says the same (a changed file is parsed again)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from thoughtforge.bounded_input import MAX_CONFIG_BYTES, InputRefused, load_yaml, read_capped_text
from thoughtforge.config.described_errors import describe_validation_error
from thoughtforge.config.files import EXAMPLE_NAME, config_path
from thoughtforge.config.model import Config
from thoughtforge.config.ports import with_chosen_ports
from thoughtforge.errors import ConfigError

_PARSED: dict[tuple[Path, str | None, str], Config] = {}
"""Each config file's last parse, by its place, `HOME` (which `~` means) and its text."""


def load_config(path: Path | None = None, *, announce: Any = print) -> Config:
    """Read and validate the config; copy the example beside it when the file is missing."""
    path = config_path(path)
    if not path.exists():
        _create_from_example(path, announce)
    try:
        text = read_capped_text(path, MAX_CONFIG_BYTES, "config")
    except InputRefused as exc:
        raise ConfigError(str(exc)) from None
    key = (path.resolve(), os.environ.get("HOME"), text)
    parsed = _PARSED.get(key)
    if parsed is None:
        parsed = _parse(path, text)
        _PARSED.clear()  # one kept: a process reads one config, a test suite many in turn
        _PARSED[key] = parsed
    # a copy: callers adjust theirs (a port chosen, a test's settings)
    return with_chosen_ports(parsed.model_copy(deep=True), path)


def _parse(path: Path, text: str) -> Config:
    try:
        raw = load_yaml(text, str(path))
    except InputRefused as exc:
        raise ConfigError(str(exc)) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} is not valid YAML: {exc}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path} must hold a YAML mapping of sections, got {type(raw).__name__}")
    try:
        config = Config.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(path, exc)) from None
    return _resolve_paths(config, path.resolve().parent)


def _create_from_example(path: Path, announce: Any) -> None:
    example = path.with_name(EXAMPLE_NAME)
    if not example.exists():
        raise ConfigError(
            f"no config file at {path.resolve()} (and no {EXAMPLE_NAME} beside it to copy). "
            "Run `thoughtforge init` to create one."
        )
    shutil.copyfile(example, path)
    announce(f"Created {path} from {example}. Edit it to choose your agent.")


def _resolve_paths(config: Config, base: Path) -> Config:
    def resolve(p: Path | None, key: str) -> Path | None:
        return None if p is None else _resolved(base / p.expanduser(), key)

    config.projects.directory = _resolved(
        base / config.projects.directory.expanduser(), "projects.directory"
    )
    config.prompts.directory = resolve(config.prompts.directory, "prompts.directory")
    config.plugins.directory = resolve(config.plugins.directory, "plugins.directory")
    drive = config.connectors.google_drive
    drive.credentials_path = resolve(
        drive.credentials_path, "connectors.google_drive.credentials_path"
    )
    return config


def _resolved(path: Path, key: str) -> Path:
    try:
        return path.resolve()
    except (RuntimeError, OSError):  # Python 3.11 reports a link loop as RuntimeError
        raise ConfigError(f"{key}: {path} is a link that loops (or cannot be read)") from None
