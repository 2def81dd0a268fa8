"""docs/ARCHITECTURE.md's module map names every module of the package, so a newcomer who reads it
finds each file and what it is for. A module added without a line there fails here.

The map is a block of indented entries, one per folder (`  core/`, `  plugins/code/`, the
package's root modules on a line of their own), each saying what the folder's modules are for.
A module counts as named when the entry of the nearest folder above it names its file
(`ledger.py`) and every folder between (`polish/`, `spend/`); a package's `__init__.py` is named
by its folder. Modules are found on disk; nothing is imported.
"""

from __future__ import annotations

import re
from pathlib import Path

import thoughtforge

PACKAGE = Path(thoughtforge.__file__).parent
ARCHITECTURE = Path(__file__).parents[1] / "docs" / "ARCHITECTURE.md"
_ENTRY = re.compile(r"^  (\S+/)(?=\s|$)")
"""An entry's folder, at the map's first indent (`  phases/`); the text after it is its entry."""


def map_entries(document: str) -> dict[str, str]:
    """Each folder's entry text in the map's code block, by folder (`phases/`); the package's
    root modules under "" (their line starts with a file, not a folder)."""
    block = document.split("## The module map", 1)[1].split("```", 2)[1]
    entries: dict[str, str] = {}
    current: str | None = None
    for line in block.splitlines():
        entry = _ENTRY.match(line)
        if entry:
            current = entry.group(1)
            entries[current] = entries.get(current, "") + line[entry.end() :] + "\n"
        elif re.match(r"^  \S", line):
            current = ""
            entries[current] = entries.get(current, "") + line + "\n"
        elif re.match(r"^\S", line):
            current = None  # `tests/`, `prefect.yaml`: outside the package
        elif current is not None:
            entries[current] += line + "\n"
    return entries


def unnamed(modules: list[str], entries: dict[str, str]) -> list[str]:
    """The modules (paths under the package, `phases/polish/ledger.py`) the map does not name."""
    missing = []
    for module in modules:
        folder = max((f for f in entries if f and module.startswith(f)), key=len, default="")
        *between, name = module.removeprefix(folder).split("/")
        needed = [f"{part}/" for part in between] + ([] if name == "__init__.py" else [name])
        text = entries.get(folder, "")
        if not all(re.search(rf"(?<![\w./]){re.escape(n)}(?!\w)", text) for n in needed):
            missing.append(module)
    return missing


def _package_modules() -> list[str]:
    return sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py"))


def test_every_module_of_the_package_is_in_the_module_map() -> None:
    entries = map_entries(ARCHITECTURE.read_text(encoding="utf-8"))
    assert unnamed(_package_modules(), entries) == []


def test_a_module_the_map_leaves_out_is_found_however_its_name_is_used_elsewhere() -> None:
    document = """## The module map

```
thoughtforge/
  core/         the project on disk: project.py, spend/ (budget.py whether a call fits)
  phases/       polish/ (loop.py drives it; the ledger of findings)
  errors.py  models.py   the shared vocabulary
tests/          mirrors the package: ledger.py
```
"""
    entries = map_entries(document)
    modules = [
        "core/project.py",
        "core/spend/budget.py",
        "core/spend/ledger.py",  # named only under tests/
        "core/state.py",
        "phases/polish/__init__.py",
        "phases/polish/loop.py",
        "phases/polish/ledger.py",  # its word, not its file
        "errors.py",
        "__main__.py",
    ]
    assert unnamed(modules, entries) == [
        "core/spend/ledger.py",
        "core/state.py",
        "phases/polish/ledger.py",
        "__main__.py",
    ]
