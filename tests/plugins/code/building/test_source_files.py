from __future__ import annotations

from pathlib import Path

from thoughtforge.core import git_repo
from thoughtforge.plugins.code.building.source_files import source_files


def test_source_files_are_code_git_keeps_without_tests_or_thoughtforges_files(
    tmp_path: Path,
) -> None:
    git_repo.init_repo(tmp_path)
    files = {
        "app/main.py": "",
        "tests/test_main.py": "",
        "test_top.py": "",
        "src/store_test.go": "",
        "web/form.spec.ts": "",
        "web/form.tsx": "",
        "docs/notes.md": "",
        "status.json": "{}",
        "build/generated.py": "",
        ".gitignore": "build/\n",
    }
    for relpath, text in files.items():
        (tmp_path / relpath).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relpath).write_text(text)
    assert source_files(tmp_path) == ["app/main.py", "web/form.tsx"]
