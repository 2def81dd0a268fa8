"""Where the config file is (`--config`, `$THOUGHTFORGE_CONFIG`, `./config.yaml`), the example
it is made from, and the working folder kept beside it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

CONFIG_ENV_VAR = "THOUGHTFORGE_CONFIG"
DEFAULT_CONFIG_NAME = "config.yaml"
EXAMPLE_NAME = "config.yaml.example"
PACKAGED_EXAMPLE = Path(__file__).with_name(EXAMPLE_NAME)
STATE_DIR = ".thoughtforge"
EXAMPLE_BRAIN_DUMP = "examples/wedding-plan.md"


def shipped_file(relative: str) -> Path:
    """A file kept at the repository's root that a tool install carries inside the package
    (pyproject's force-include): the package's copy when installed from a wheel, the clone's own
    file otherwise (the package's path, missing, when neither is there)."""
    package = Path(__file__).resolve().parents[1]
    for candidate in (package / relative, package.parent / relative):
        if candidate.exists():
            return candidate
    return package / relative


def config_path(explicit: Path | None = None) -> Path:
    """--config wins, then $THOUGHTFORGE_CONFIG, then ./config.yaml."""
    if explicit is not None:
        return explicit
    return Path(os.environ.get(CONFIG_ENV_VAR) or DEFAULT_CONFIG_NAME)


def state_dir(config_file: Path) -> Path:
    """ThoughtForge's own working files for one set-up, beside its config: what `up` started,
    the Vibe Kanban board's repository."""
    return config_file.resolve().parent / STATE_DIR


def write_example(target: Path) -> None:
    """Write the packaged example to `target` (used by `thoughtforge init`)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(PACKAGED_EXAMPLE, target)


def write_example_brain_dump(folder: Path) -> Path | None:
    """Copy the shipped example brain dump into `folder` (a tool install's working folder has
    no examples/, and the README's commands start from it); None when it is there already."""
    target = folder / EXAMPLE_BRAIN_DUMP
    shipped = shipped_file(EXAMPLE_BRAIN_DUMP)
    if target.exists() or not shipped.exists():
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shipped, target)
    return target
