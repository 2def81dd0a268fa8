"""Deliverable types found as folders: the built-in plan and code satisfy the contract, a folder in
`plugins.directory` adds a type, and a broken folder is refused with the folder and the reason."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from thoughtforge.config import Config, load_config
from thoughtforge.core.process_identity import running
from thoughtforge.errors import PluginError
from thoughtforge.models import DeliverableType
from thoughtforge.phases import plugin_loader
from thoughtforge.phases.intent import detect_type, type_choices
from thoughtforge.phases.plugin_loader import load_plugins, plugin_for
from thoughtforge.phases.polish.review import CodeReview, PlanReview
from thoughtforge.plugins.code.polish import PolishSteps as CodePolishSteps
from thoughtforge.plugins.plan import safety as plan_safety
from thoughtforge.process_tree import descendants

CHECKLIST = REPO_ROOT / "examples" / "plugins" / "checklist"


def test_the_built_in_types_satisfy_the_contract(config: Config) -> None:
    plugins = load_plugins(config)
    assert list(plugins) == ["plan", "code"]
    plan, code = plugins["plan"], plugins["code"]
    assert (plan.label, plan.deliverable, plan.builds_files) == ("Plan", "docs/plan.md", False)
    assert (plan.review, plan.polish_steps, plan.safety) == (PlanReview, None, plan_safety)
    assert (plan.discovery, plan.suite_run) == (None, None)
    assert (code.label, code.builds_files, code.deliverable_path(Path("/p"))) == (
        "Code",
        True,
        Path("/p"),
    )
    assert (code.review, code.polish_steps) == (CodeReview, CodePolishSteps)
    assert code.discovery is not None and code.suite_run is not None
    assert plugin_for(config, None) is plan  # a project not typed yet


def test_a_folder_in_the_plugins_directory_adds_a_type(
    tmp_path: Path, write_config: Callable[..., Path]
) -> None:
    folder = _plugins(tmp_path, "checklist")
    config = load_config(write_config(plugins={"directory": str(folder.parent)}))
    checklist = plugin_for(config, DeliverableType("checklist"))
    assert (checklist.folder, checklist.label) == (folder, "Checklist")
    assert checklist.deliverable_path(tmp_path) == tmp_path / "docs" / "checklist.md"
    assert checklist.prompt_library(config).path("checklist-review").parent == folder / "prompts"
    assert "- `Checklist`: a list of concrete items" in type_choices(load_plugins(config))


@pytest.mark.parametrize(
    ("first_line", "detected"),
    [
        ("Checklist — trip packing", "checklist"),
        ("Code — CLI tool", "code"),
        ("Plan or Checklist: unclear", "plan"),  # several named: the default type
        ("A packing list", "plan"),  # none named
    ],
)
def test_phase_one_detects_the_type_the_first_line_names(
    tmp_path: Path, write_config: Callable[..., Path], first_line: str, detected: str
) -> None:
    folder = _plugins(tmp_path, "checklist")
    plugins = load_plugins(load_config(write_config(plugins={"directory": str(folder.parent)})))
    assert detect_type(f"{first_line}\nmore words: code plan", plugins) == detected


def test_a_type_no_folder_provides_is_named(config: Config) -> None:
    with pytest.raises(PluginError, match="no plugin provides the deliverable type 'checklist'"):
        plugin_for(config, DeliverableType("checklist"))


def _missing_builder(folder: Path) -> None:
    (folder / "builder.py").unlink()


def _bad_manifest(folder: Path) -> None:
    (folder / "plugin.yaml").write_text("label: Checklist\ncolour: green\n")


def _deliverable_outside_the_project(folder: Path) -> None:
    manifest = (folder / "plugin.yaml").read_text()
    (folder / "plugin.yaml").write_text(manifest.replace("docs/checklist.md", "../../.bashrc"))


def _manifest_not_a_mapping(folder: Path) -> None:
    (folder / "plugin.yaml").write_text("- label\n")


def _unimportable_builder(folder: Path) -> None:
    (folder / "builder.py").write_text("import thoughtforge.no_such_module\n")


def _schema_not_a_review(folder: Path) -> None:
    (folder / "reviewer.py").write_text(
        "from pydantic import BaseModel\n\nclass Review(BaseModel):\n    items: list[str]\n"
    )


def _rules_without_validate(folder: Path) -> None:
    (folder / "safety.py").write_text("ALLOWED = ()\n")


def _builder_without_build(folder: Path) -> None:
    (folder / "builder.py").write_text("class ChecklistBuilder:\n    pass\n")


@pytest.mark.parametrize(
    ("breakage", "reason"),
    [
        (_missing_builder, "builder.py missing"),
        (_bad_manifest, r"plugin.yaml: detect: Field required"),
        (_deliverable_outside_the_project, "plugin.yaml: deliverable: Value error, '../../"),
        (_manifest_not_a_mapping, "plugin.yaml: value: Input should be a valid dictionary"),
        (_unimportable_builder, "builder.py cannot be imported: ModuleNotFoundError"),
        (_schema_not_a_review, r"reviewer.py `Review` \(the review schema\): Input should be a"),
        (_rules_without_validate, r"safety.py \(the safety rules\): Input should be an instance"),
        (_builder_without_build, "builder.py has no `build`"),
    ],
)
def test_a_broken_folder_is_refused_with_the_folder_and_the_reason(
    tmp_path: Path,
    write_config: Callable[..., Path],
    breakage: Callable[[Path], None],
    reason: str,
) -> None:
    folder = _plugins(tmp_path, "checklist")
    breakage(folder)
    config = load_config(write_config(plugins={"directory": str(folder.parent)}))
    with pytest.raises(PluginError, match=f"^plugin folder {folder} is refused: {reason}"):
        load_plugins(config)


@pytest.mark.parametrize(
    ("name", "reason"),
    [("plan", "'plan' is a built-in deliverable type"), ("Packing-List", "is not a deliverable")],
)
def test_a_folder_cannot_take_a_built_in_name_or_one_that_is_no_name(
    tmp_path: Path, write_config: Callable[..., Path], name: str, reason: str
) -> None:
    folder = _plugins(tmp_path, name)
    config = load_config(write_config(plugins={"directory": str(folder.parent)}))
    with pytest.raises(PluginError, match=f"plugin folder {folder} is refused: .*{reason}"):
        load_plugins(config)


def test_a_plugins_directory_that_is_not_there_is_refused(
    tmp_path: Path, write_config: Callable[..., Path]
) -> None:
    config = load_config(write_config(plugins={"directory": str(tmp_path / "nowhere")}))
    with pytest.raises(PluginError, match=f"plugins.directory {tmp_path / 'nowhere'} is not"):
        load_plugins(config)


def test_a_plugin_package_imports_its_own_modules(
    tmp_path: Path, write_config: Callable[..., Path]
) -> None:
    """Two folders of one name in two directories never share their modules."""
    folder = _plugins(tmp_path, "checklist")
    (folder / "__init__.py").write_text("")
    (folder / "rules.py").write_text("from thoughtforge.plugins.plan.safety import validate\n")
    (folder / "safety.py").write_text("from .rules import validate\n\n__all__ = ['validate']\n")
    config = load_config(write_config(plugins={"directory": str(folder.parent)}))
    assert plugin_for(config, DeliverableType("checklist")).safety.validate is plan_safety.validate
    other = _plugins(tmp_path / "other", "checklist")
    (other / "safety.py").write_text("def validate(operation):\n    pass\n")
    elsewhere = load_config(write_config(plugins={"directory": str(other.parent)}))
    assert plugin_for(elsewhere, DeliverableType("checklist")).safety.validate is not (
        plan_safety.validate
    )


def _plugins(base: Path, name: str) -> Path:
    """A copy of the example checklist plugin as `<base>/plugins/<name>`."""
    folder = base / "plugins" / name
    shutil.copytree(CHECKLIST, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def _append(folder: Path, code: str) -> None:
    builder = folder / "builder.py"
    builder.write_text(builder.read_text() + code)


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        ("import sys\nsys.exit(0)\n", r"builder.py cannot be imported: it calls sys.exit\(0\)"),
        ("raise SystemExit('bye')\n", r"builder.py cannot be imported: it calls sys.exit\('bye'\)"),
        ("import os\nos._exit(0)\n", r"importing it ended the process \(exit code 0\)"),
        ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", r"exit code -9"),
        ("while True:\n    pass\n", r"it did not finish importing in 5 s"),
    ],
)
def test_nothing_a_plugin_does_at_import_escapes_as_silence_or_blocks(
    tmp_path: Path,
    write_config: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    code: str,
    reason: str,
) -> None:
    """Before, `sys.exit(0)` at import ended `doctor` and `run --auto-confirm` with rc 0 and
    nothing said (only `Exception` was caught), and an import that loops froze the process (the
    workbench's event loop with it)."""
    monkeypatch.setattr(plugin_loader, "IMPORT_SECONDS", 5.0)
    folder = _plugins(tmp_path, "checklist")
    _append(folder, code)
    config = load_config(write_config(plugins={"directory": str(folder.parent)}))
    with pytest.raises(PluginError, match=f"^plugin folder {folder} is refused: .*{reason}"):
        load_plugins(config)


def test_what_a_plugin_prints_at_import_stays_out_of_the_output(
    tmp_path: Path, write_config: Callable[..., Path], capfd: pytest.CaptureFixture[str]
) -> None:
    folder = _plugins(tmp_path, "checklist")
    _append(folder, "print('HELLO FROM THE PLUGIN')\n")
    config = load_config(write_config(plugins={"directory": str(folder.parent)}))
    assert "checklist" in load_plugins(config)
    assert "HELLO" not in capfd.readouterr().out


def test_a_plugin_check_that_never_ends_dies_with_the_process_that_started_it(
    tmp_path: Path, write_config: Callable[..., Path]
) -> None:
    """Before, killing the page server during the check left the child spinning at 100 % CPU
    in its own session, 29 and 44 minutes later."""
    folder = _plugins(tmp_path, "checklist")
    _append(folder, "while True:\n    pass\n")
    config_file = write_config(plugins={"directory": str(folder.parent)})
    checking = (
        "import sys\nfrom thoughtforge.config import load_config\n"
        "from thoughtforge.phases.plugin_loader import load_plugins\n"
        "load_plugins(load_config(__import__('pathlib').Path(sys.argv[1])))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO_ROOT), "HOME": str(tmp_path)}
    parent = subprocess.Popen([sys.executable, "-c", checking, str(config_file)], env=env)
    children: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while not children and time.monotonic() < deadline:
            time.sleep(0.2)
            children = descendants([parent.pid])
        assert children, "the check's child never started"
        time.sleep(1)  # it spins in the plugin's import now
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 10
        while any(running(child) for child in children) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(running(child) for child in children)
    finally:
        parent.kill()
        for child in children:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child, signal.SIGKILL)
