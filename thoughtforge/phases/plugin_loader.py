"""Finding the deliverable types: every folder under `thoughtforge/plugins/`, then every folder in
`plugins.directory`, each read into a `plugin_contract.Plugin` by its name.

A folder that does not satisfy the contract (a required file missing, a `plugin.yaml` or review
schema that does not validate, a module that fails to import, a built-in type's name taken) is
refused, with the folder and the reason, when the plugins are first loaded: at the start of a run
(and by `run` before it creates the project, and `doctor`), never half-way through a project.
The phases ask `plugin_for` and never import a plugin by name. The folders are read once per
process (a run's own): a folder added or changed counts from the next run on.

A plugin's code runs at import, and nothing it does there may escape: the folders of
`plugins.directory` are first imported in a child process, given `IMPORT_SECONDS`, so one that
loops forever, exits or kills its process is refused (naming the folder) without stopping this
one, or a server's pages; only then are they imported here. Any exception, `sys.exit` included,
refuses the folder; what a plugin prints at import is not let through to this process's output.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import io
import json
import os
import signal
import subprocess
import sys
import threading
from functools import cache
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml
from pydantic import ValidationError

from thoughtforge.bounded_input import MAX_CONFIG_BYTES, InputRefused, load_yaml, read_capped_text
from thoughtforge.config import Config
from thoughtforge.errors import PluginError
from thoughtforge.models import DEFAULT_DELIVERABLE_TYPE, DeliverableType
from thoughtforge.phases.plugin_contract import Plugin, PluginManifest

BUILT_IN = Path(__file__).parents[1] / "plugins"
"""The built-in types' folders (found by path: the phases import no plugin by name)."""
MANIFEST = "plugin.yaml"
CONTRACT = "thoughtforge/phases/plugin_contract.py"
REQUIRED = ("builder", "reviewer", "safety")
OPTIONAL = ("discovery", "validation", "suite_run")
_PARTS = {
    "build": "builder.py `build`",
    "review": "reviewer.py `Review` (the review schema)",
    "polish_steps": "reviewer.py `PolishSteps`",
    "safety": "safety.py (the safety rules)",
    "discovery": "discovery.py",
    "validation": "validation.py `validate(project, candidate)`",
    "suite_run": "suite_run.py",
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
    _check_in_child(directory)
    for folder in _folders(directory):
        plugins[folder.name] = _load_folder(folder, set(plugins))
    return plugins


def _load_folder(folder: Path, built_in: set[str]) -> Plugin:
    if folder.name in built_in:
        raise PluginError(folder, f"'{folder.name}' is a built-in deliverable type")
    package = _package_for(folder)
    if package not in sys.modules:
        _register_package(folder, package)
    return _load(folder, package)


IMPORT_SECONDS = 30.0
"""How long the folders of `plugins.directory` may take to import, all together."""
STARTUP_SECONDS = 120.0
"""How long the child may take to start (Python, ThoughtForge) before its first folder."""
_VERDICT = "THOUGHTFORGE-PLUGIN-CHECK:"
_IMPORTING = "THOUGHTFORGE-PLUGIN-IMPORTING:"
_CHILD = (
    "import sys\n"
    "from thoughtforge.core.child_lifetime import die_with_parent\n"
    "die_with_parent(int(sys.argv[2]))\n"
    "from thoughtforge.phases.plugin_loader import check_here\n"
    "check_here(sys.argv[1])\n"
)


def _check_in_child(directory: Path) -> None:
    """Import the folders in a child process first: `PluginError` for the first one refused,
    one that took longer than `IMPORT_SECONDS`, or one that ended the child. The time counts
    from the child's first folder, not its own start."""
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(directory), str(os.getpid())],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # what a plugin starts is stopped with it
    )
    output: list[bytes] = []
    began = threading.Event()

    def read() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            output.append(line)
            if line.startswith(_IMPORTING.encode()):
                began.set()
        began.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        began.wait(STARTUP_SECONDS)
        child.wait(IMPORT_SECONDS)
    except subprocess.TimeoutExpired:
        _stop(child)
        reader.join(5)
        raise PluginError(
            _said(output, _IMPORTING, directory),
            f"it did not finish importing in {IMPORT_SECONDS:g} s (code that runs at import "
            "never ends?)",
        ) from None
    finally:
        _stop(child)
    reader.join(5)
    verdicts = [line for line in output if line.startswith(_VERDICT.encode())]
    if not verdicts:
        raise PluginError(
            _said(output, _IMPORTING, directory),
            f"importing it ended the process (exit code {child.returncode})",
        )
    verdict = json.loads(verdicts[-1][len(_VERDICT) :])
    if verdict is not None:
        folder = verdict["folder"]
        raise PluginError(Path(folder) if folder else None, verdict["reason"])


def _stop(child: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(child.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        child.wait(5)


def _said(output: list[bytes], marker: str, default: Path) -> Path:
    """The folder named by the child's last `marker` line: the one it was importing."""
    lines = [line.strip() for line in output if line.startswith(marker.encode())]
    return Path(lines[-1][len(marker) :].decode()) if lines else default


def check_here(directory: str) -> None:
    """The child's side: import every folder, saying which before each, then print the verdict
    (null, or the refusal)."""
    refusal: dict[str, str | None] | None = None
    built_in = {f.name for f in _folders(BUILT_IN)}
    try:
        for folder in _folders(Path(directory)):
            os.write(1, f"\n{_IMPORTING}{folder}\n".encode())
            _load_folder(folder, built_in)
    except PluginError as exc:
        refusal = {"folder": str(exc.folder) if exc.folder else None, "reason": exc.reason}
    sys.stdout.flush()
    os.write(1, f"\n{_VERDICT}{json.dumps(refusal)}\n".encode())


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
        text = read_capped_text(path, MAX_CONFIG_BYTES, MANIFEST)
        return PluginManifest.model_validate(load_yaml(text, str(path)))
    except (InputRefused, yaml.YAMLError) as exc:
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
            with _quiet():
                spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - any failure refuses the folder
        del sys.modules[package]
        raise PluginError(folder, f"__init__.py cannot be imported: {_why(exc)}") from None


def _module(folder: Path, package: str, name: str) -> ModuleType:
    try:
        with _quiet():
            return importlib.import_module(f"{package}.{name}")
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - any failure refuses the folder
        raise PluginError(folder, f"{name}.py cannot be imported: {_why(exc)}") from None


def _quiet() -> contextlib.AbstractContextManager[object]:
    """A plugin's prints at import go nowhere: never into a command's output."""
    return contextlib.redirect_stdout(io.StringIO())


def _why(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"it calls sys.exit({exc.code!r}) when imported"
    return repr(exc)


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
