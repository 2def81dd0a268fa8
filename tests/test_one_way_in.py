"""`core` has one way in: its modules (`from thoughtforge.core.state import read_status`), never
its package. Its `__init__`, and those of `core.spend` and `stack`, keep a docstring and re-export
nothing, so each name has one import path and the import names the file that defines it. Files
are read as text; nothing is imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parents[1]
FACELESS = ("thoughtforge.core", "thoughtforge.core.spend", "thoughtforge.stack")
"""The packages that are ways to their modules only, never to a name."""


def _package_modules() -> set[str]:
    found = set()
    for path in (ROOT / "thoughtforge").rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found.add(".".join(parts))
    return found


def _init(package: str) -> Path:
    return ROOT.joinpath(*package.split("."), "__init__.py")


def test_the_packages_keep_a_docstring_and_re_export_nothing() -> None:
    for package in FACELESS:
        body = ast.parse(_init(package).read_text(encoding="utf-8")).body
        assert ast.get_docstring(ast.Module(body=body, type_ignores=[])), package
        beyond = [
            ast.unparse(node).splitlines()[0]
            for node in body[1:]
            if not (isinstance(node, ast.ImportFrom) and node.module == "__future__")
        ]
        assert beyond == [], f"{package} binds names: import them from their modules"


def test_no_file_imports_a_name_from_the_packages() -> None:
    modules = _package_modules()
    through_package = []
    for folder in ("thoughtforge", "tests", "bench", "examples"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            package = ".".join(path.relative_to(ROOT).parent.parts)
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.ImportFrom):
                    continue
                source = node.module or ""
                if node.level:
                    above = package.split(".")[: len(package.split(".")) - node.level + 1]
                    source = ".".join([*above, *([node.module] if node.module else [])])
                through_package += [
                    f"{path.relative_to(ROOT)}:{node.lineno}: {source} import {alias.name}"
                    for alias in node.names
                    if source in FACELESS and f"{source}.{alias.name}" not in modules
                ]
    assert through_package == [], "import these from the module that defines them"
