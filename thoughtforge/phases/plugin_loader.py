"""Finding the deliverable types: every folder under `thoughtforge/plugins/`, then every folder in
`plugins.directory`, each read into a `plugin_contract.Plugin` by its name.

A folder that does not satisfy the contract (a required file missing, a `plugin.yaml` or review
schema that does not validate, a module that fails to import, a built-in type's name taken) is
refused, with the folder and the reason, when the plugins are first loaded: at the start of a run
(and by `run` before it creates the project, and `doctor`), never half-way through a project.
The phases ask `plugin_for` and never import a plugin by name. The folders are read once per
process (a run's own): a folder added or changed counts from the next run on.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from functools import cache
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml
from pydantic import ValidationError

import thoughtforge.plugins
from thoughtforge.config import Config
from thoughtforge.errors import PluginError
from thoughtforge.models import DEFAULT_DELIVERABLE_TYPE, DeliverableType
from thoughtforge.phases.plugin_contract import Plugin, PluginManifest

BUILT_IN = Path(thoughtforge.plugins.__file__).parent
MANIFEST = "plugin.yaml"
CONTRACT = "thoughtforge/phases/plugin_contract.py"
REQUIRED = ("builder", "reviewer", "safety")
OPTIONAL = ("discovery", "test_runner")
_PARTS = {
    "build": "builder.py `build`",
    "review": "reviewer.py `Review` (the review schema)",
    "polish_steps": "reviewer.py `PolishSteps`",
    "safety": "safety.py (the safety rules)",
    "discovery": "discovery.py",
    "test_runner": "test_runner.py",
}


def plugin_for(config: Config, deliverable_type: str | None) -> Plugin:
    """The plugin of a project's type (a project not typed yet is the default type's)."""
    plugins = load_plugins(config)
    name = deliverable_type or DEFAULT_DELIVERABLE_TYPE
    if name not in plugins:
        looked = ", ".join(str(d) for d in (BUILT_IN, config.plugins.directory) if d is not None)
        raise PluginError(
            None,
            f"no plugin provides the deliverable type '{name}' (looked in {looked}; "
            f"found: {', '.join(plugins)})",
        )
    return plugins[name]


def load_plugins(config: Config) -> dict[str, Plugin]:
    """Every deliverable type, the default (plan) first, then the other built-in ones, then the
    folder's; the first call imports them, so it refuses a broken folder before anything runs."""
    return _load_all(config.plugins.directory)


@cache
def _load_all(directory: Path | None) -> dict[str, Plugin]:
    built_in = sorted(_folders(BUILT_IN), key=lambda f: f.name != DEFAULT_DELIVERABLE_TYPE)
    plugins = {f.name: _load(f, f"thoughtforge.plugins.{f.name}") for f in built_in}
    if directory is None:
        return plugins
    if not directory.is_dir():
        raise PluginError(None, f"plugins.directory {directory} is not a folder")
    for folder in _folders(directory):
        if folder.name in plugins:
            raise PluginError(folder, f"'{folder.name}' is a built-in deliverable type")
        package = _package_for(folder)
        if package not in sys.modules:
            _register_package(folder, package)
        plugins[folder.name] = _load(folder, package)
    return plugins


def _folders(directory: Path) -> list[Path]:
    return sorted(
        p for p in directory.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
    )


def _load(folder: Path, package: str) -> Plugin:
    try:
        name = DeliverableType(folder.name)
    except ValueError as exc:
        raise PluginError(folder, f"the folder's name is the type's: {exc}") from None
    missing = [f"{m}.py" for m in REQUIRED if not (folder / f"{m}.py").is_file()]
    missing += [] if (folder / MANIFEST).is_file() else [MANIFEST]
    if missing:
        raise PluginError(folder, f"{', '.join(missing)} missing (see {CONTRACT})")
    builder, reviewer, safety = (_module(folder, package, m) for m in REQUIRED)
    optional = {m: _module(folder, package, m) for m in OPTIONAL if (folder / f"{m}.py").is_file()}
    prompts = folder / "prompts"
    try:
        return Plugin(
            name=name,
            folder=folder,
            manifest=_manifest(folder),
            build=_attribute(folder, builder, "build"),
            review=_attribute(folder, reviewer, "Review"),
            polish_steps=getattr(reviewer, "PolishSteps", None),
            safety=safety,
            prompts=prompts if prompts.is_dir() else None,
            **optional,
        )
    except ValidationError as exc:
        raise PluginError(folder, _describe(exc, _PARTS)) from None


def _manifest(folder: Path) -> PluginManifest:
    path = folder / MANIFEST
    try:
        return PluginManifest.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise PluginError(folder, f"{MANIFEST} cannot be read: {exc}") from None
    except ValidationError as exc:
        raise PluginError(folder, f"{MANIFEST}: {_describe(exc)}") from None


def _register_package(folder: Path, package: str) -> None:
    """A folder outside the package is imported as a package of its own, so its modules can
    import each other (`from .rules import …`)."""
    init = folder / "__init__.py"
    spec = ModuleSpec(package, None, is_package=True)
    if init.is_file():
        spec = importlib.util.spec_from_file_location(package, init) or spec
    spec.submodule_search_locations = [str(folder)]
    module = importlib.util.module_from_spec(spec)
    sys.modules[package] = module
    try:
        if spec.loader is not None:
            spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - any failure of the plugin's code refuses the folder
        del sys.modules[package]
        raise PluginError(folder, f"__init__.py cannot be imported: {exc!r}") from None


def _module(folder: Path, package: str, name: str) -> ModuleType:
    try:
        return importlib.import_module(f"{package}.{name}")
    except Exception as exc:  # noqa: BLE001 - any failure of the plugin's code refuses the folder
        raise PluginError(folder, f"{name}.py cannot be imported: {exc!r}") from None


def _attribute(folder: Path, module: ModuleType, name: str) -> Any:
    if not hasattr(module, name):
        file = module.__name__.rsplit(".", 1)[-1]
        raise PluginError(folder, f"{file}.py has no `{name}` (see {CONTRACT})")
    return getattr(module, name)


def _package_for(folder: Path) -> str:
    """A package name of its own per folder: two folders of one name never share modules."""
    digest = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:10]
    return f"thoughtforge_plugin_{folder.name}_{digest}"


def _describe(exc: ValidationError, parts: dict[str, str] | None = None) -> str:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "value"
    return f"{(parts or {}).get(where, where)}: {first['msg']}"
