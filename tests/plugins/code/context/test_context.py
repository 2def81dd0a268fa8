"""What the code-mode polish loop shows its reviewer and fixer: real projects in tmp_path, each
with its own git repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from thoughtforge.core import git_repo
from thoughtforge.plugins.code.context import fix_context, review_context
from thoughtforge.plugins.code.context.fitting import MIN_PART_TOKENS
from thoughtforge.prompting import estimate_tokens

SECRET = "TOP-SECRET-OUTSIDE-THE-PROJECT"
THOUGHTFORGE_FILES = {
    "status.json": '{"phase": "polishing", "marker": "STATUS-MARKER"}\n',
    "chat_history.json": '{"messages": ["CHAT-MARKER"]}\n',
    "polish_state.json": '{"iteration": 1, "marker": "POLISH-MARKER"}\n',
    "docs/spec.md": "# Spec\nSPEC-MARKER\n",
    "docs/constraints.md": "# Constraints\nCONSTRAINTS-MARKER\n",
    "resources/notes.txt": "RESOURCE-MARKER\n",
    ".scripted-agent/answers.json": '["SCRIPTED-MARKER"]\n',
    "thoughtforge.log": "LOG-MARKER\n",
}
THOUGHTFORGE_MARKERS = ["STATUS", "CHAT", "POLISH", "SPEC", "CONSTRAINTS", "RESOURCE", "SCRIPTED"]
THOUGHTFORGE_MARKERS += ["LOG"]


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def head(root: Path, ref: str = "HEAD") -> str:
    done = subprocess.run(
        ["git", "rev-parse", ref], cwd=root, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project beside a secret file it must never show, with ThoughtForge's files committed."""
    (tmp_path / "secret.txt").write_text(SECRET + "\n")
    root = tmp_path / "proj"
    root.mkdir()
    git_repo.init_repo(root)
    write(root, THOUGHTFORGE_FILES)
    git_repo.commit(root, "project created")
    return root


def numbered(name: str, lines: int) -> str:
    return "".join(f"{name}_line_{i:05d} = {i}\n" for i in range(lines))


# --- review context -----------------------------------------------------------------------------


def test_a_codebase_that_fits_is_shown_in_full_one_fenced_block_per_file(project: Path) -> None:
    write(project, {"src/app.py": "def main():\n    return 'APP-BODY'\n"})
    git_repo.commit(project, "build")
    write(project, {"src/util.py": "UTIL = 'UTIL-BODY'\n", "README.md": "# Tool\nREADME-BODY\n"})

    context = review_context(project, budget_tokens=10_000, since=None)

    assert context.mode == "codebase"
    assert context.files == ["README.md", "src/app.py", "src/util.py"]  # untracked ones too
    assert "### src/app.py (2 lines)\n```\ndef main():\n    return 'APP-BODY'\n```" in context.text
    assert "### src/util.py (1 line)\n```\nUTIL = 'UTIL-BODY'\n```" in context.text
    assert "README-BODY" in context.text
    assert not context.truncated
    assert context.tokens == estimate_tokens(context.text)


def test_a_file_holding_backticks_gets_a_longer_fence(project: Path) -> None:
    write(project, {"notes.py": 'DOC = """\n```\nexample\n```\n"""\n'})

    context = review_context(project, budget_tokens=10_000, since=None)

    assert "### notes.py (5 lines)\n````\nDOC" in context.text
    assert context.text.count("````") == 2


def test_thoughtforge_files_ignored_files_and_cache_folders_are_not_the_codebase(
    project: Path,
) -> None:
    write(
        project,
        {
            ".gitignore": "build/\n*.env\n",
            "build/bundle.js": "BUILD-MARKER\n",
            "local.env": "ENV-MARKER\n",
            "__pycache__/app.cpython-311.pyc": "PYCACHE-MARKER\n",
            ".pytest_cache/v/cache/lastfailed": "PYTEST-CACHE-MARKER\n",
            "node_modules/left-pad/index.js": "NODE-MODULES-MARKER\n",
            "app.py": "print('APP')\n",
        },
    )
    (project / "leak.txt").symlink_to(project.parent / "secret.txt")
    git_repo.commit(project, "everything, node_modules and the symlink included")

    context = review_context(project, budget_tokens=10_000, since=None)

    assert context.files == ["app.py"]
    assert context.mode == "codebase"
    assert "print('APP')" in context.text
    markers = ["BUILD", "ENV", "PYCACHE", "PYTEST-CACHE", "NODE-MODULES", *THOUGHTFORGE_MARKERS]
    for marker in markers:
        assert f"{marker}-MARKER" not in context.text
    assert SECRET not in context.text


def test_a_binary_file_is_named_but_never_read(project: Path) -> None:
    logo = b"\x89PNG\r\n\x1a\n\x00\x00BINARY-BODY"
    write(project, {"logo.png": logo, "app.py": "x = 1\n"})

    context = review_context(project, budget_tokens=10_000, since=None)

    assert context.files == ["app.py"]
    assert context.not_shown == ["logo.png"]
    assert f"Not shown (binary, or over 1,000,000 bytes): logo.png ({len(logo)} bytes)." in (
        context.text
    )
    assert "BINARY-BODY" not in context.text


def test_a_codebase_over_budget_gets_a_manifest_and_the_diff_since_the_given_commit(
    project: Path,
) -> None:
    big = numbered("big", 400)
    write(project, {"big.py": big, "app.py": "def f():\n    return 1\n"})
    git_repo.commit(project, "review #1")
    since = head(project)
    write(project, {"app.py": "def f():\n    return 2\n", "status.json": '{"STATUS-CHANGE": 1}'})
    git_repo.commit(project, "fix #1")
    write(project, {"fresh.py": "FRESH = 'new, untracked'\n"})

    context = review_context(project, budget_tokens=2_000, since=since)

    assert context.mode == "manifest"
    assert context.diff_base == since
    assert context.files == ["app.py", "big.py", "fresh.py"]
    assert context.tokens > 2_000
    assert f"- big.py — 400 lines, {len(big):,} bytes\n" in context.text
    assert "- app.py — 2 lines, 22 bytes\n" in context.text
    assert f"the changes since the last iteration ({since}" in context.text
    assert "-    return 1\n+    return 2\n" in context.text
    assert "+FRESH = 'new, untracked'" in context.text
    assert "big_line_00200" not in context.text  # unchanged code is only listed
    assert "STATUS-CHANGE" not in context.text
    assert not context.truncated
    assert estimate_tokens(context.text) <= 2_000


def test_without_a_known_commit_the_last_commit_stands_in(project: Path) -> None:
    write(project, {"big.py": numbered("big", 400), "app.py": "A = 1\n"})
    git_repo.commit(project, "build")
    write(project, {"app.py": "A = 2\n"})
    git_repo.commit(project, "fix")

    unrecorded = review_context(project, budget_tokens=1_500, since=None)
    unknown = review_context(project, budget_tokens=1_500, since="0123abcd")

    for context in (unrecorded, unknown):
        assert context.mode == "manifest"
        assert context.diff_base == head(project, "HEAD~1")
        assert "-A = 1\n+A = 2\n" in context.text
        assert "`git diff HEAD~1`" in context.text
    assert "no previous iteration is recorded" in unrecorded.text
    assert "'0123abcd' is not a commit here" in unknown.text


def test_a_repository_with_one_commit_has_no_diff_and_says_so(tmp_path: Path) -> None:
    git_repo.init_repo(tmp_path)
    write(tmp_path, {"big.py": numbered("big", 400)})
    git_repo.commit(tmp_path, "build")

    context = review_context(tmp_path, budget_tokens=500, since=None)

    assert context.mode == "manifest"
    assert context.diff_base is None
    assert "there is no earlier commit to compare with" in context.text
    assert "big_line_00001" not in context.text


def test_a_diff_over_budget_loses_the_end_of_the_largest_change_first(project: Path) -> None:
    write(project, {"small.py": "S = 1\n", "huge.py": "H = 0\n"})
    git_repo.commit(project, "build")
    since = head(project)
    write(project, {"small.py": "S = 2\n", "huge.py": numbered("huge", 2_000)})
    git_repo.commit(project, "fix")

    context = review_context(project, budget_tokens=3_000, since=since)

    assert context.mode == "manifest"
    assert context.truncated
    assert "-S = 1\n+S = 2\n" in context.text
    assert "+huge_line_00000 = 0\n" in context.text
    assert "huge_line_01999" not in context.text
    assert "keeping the start of each file's changes: huge.py (" in context.text
    assert "small.py (" not in context.text
    assert estimate_tokens(context.text) <= 3_000


def test_a_manifest_over_budget_is_cut_with_a_count_of_what_is_left_out(project: Path) -> None:
    write(project, {f"pkg/module_{i:03d}.py": numbered(f"m{i}", 20) for i in range(300)})
    git_repo.commit(project, "build")
    write(project, {"pkg/module_000.py": "CHANGED = True\n"})
    git_repo.commit(project, "fix")

    context = review_context(project, budget_tokens=1_000, since=None)

    assert context.mode == "manifest"
    assert context.truncated
    manifest, changes = context.text.split("## Changes", 1)
    assert "- pkg/module_000.py — 1 line, 15 bytes\n" in manifest
    assert "pkg/module_299.py" not in manifest
    listed = manifest.count("- pkg/module_")
    assert 0 < listed < 300
    assert f"[… {300 - listed} more files not listed, to fit the budget …]" in manifest
    assert "+CHANGED = True" in changes  # the diff still gets its room
    assert estimate_tokens(context.text) <= 1_000


def test_changes_to_too_many_files_leave_the_last_ones_out_and_count_them(project: Path) -> None:
    write(project, {f"m{i:02d}.py": "X = 0\n" for i in range(40)})
    git_repo.commit(project, "build")
    since = head(project)
    write(project, {f"m{i:02d}.py": numbered(f"m{i:02d}", 100) for i in range(40)})
    git_repo.commit(project, "fix")

    context = review_context(project, budget_tokens=3_000, since=since)

    assert context.truncated
    assert "+m00_line_00000 = 0" in context.text  # the first files' changes, cut
    assert "+m39_line_00000" not in context.text
    note = context.text[context.text.index("Left out for lack of room, ") :]
    assert "m39.py" in note and "m00.py" not in note
    shown = sum(f"+m{i:02d}_line_00000" in context.text for i in range(40))
    assert f"Left out for lack of room, {40 - shown} files: " in note
    cut_to = int(context.text.split("to about ", 1)[1].split(" tokens each")[0])
    assert cut_to >= MIN_PART_TOKENS
    assert estimate_tokens(context.text) <= 3_000


# --- fix context --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("location", "path"),
    [
        ("src/app.py:42", "src/app.py"),
        ("src/app.py:10-20", "src/app.py"),
        ("src/app.py:42:7", "src/app.py"),
        ("src/app.py line 42", "src/app.py"),
        ("src/app.py, lines 10-20", "src/app.py"),
        ("src/app.py (function foo)", "src/app.py"),
        ("`src/app.py`:42", "src/app.py"),
        ("./src/app.py", "src/app.py"),
        ("function foo in src/app.py", "src/app.py"),
        ("app.py#L42", "app.py"),
        ("app.py#L10-L20", "app.py"),
        ("tests/test_app.py::test_main", "tests/test_app.py"),
        ("my notes.py:3", "my notes.py"),
    ],
)
def test_a_location_names_its_file_without_line_numbers_or_anchors(
    project: Path, location: str, path: str
) -> None:
    write(
        project,
        {
            "src/app.py": "SRC_APP = 1\n",
            "app.py": "ROOT_APP = 1\n",
            "tests/test_app.py": "def test_main(): pass\n",
            "my notes.py": "NOTES = 1\n",
        },
    )

    context = fix_context(project, [location], budget_tokens=10_000)

    assert context.files == [path]
    assert (project / path).read_text() in context.text
    assert (context.missing, context.refused, context.ignored) == ([], [], [])


def test_files_are_listed_once_in_order_of_first_mention(project: Path) -> None:
    write(project, {"b.py": "B = 1\n", "a.py": "A = 1\n", "c.py": "C = 1\n"})

    context = fix_context(
        project, ["c.py:3", "a.py line 1", "c.py:9", "b.py#L2", "a.py"], budget_tokens=10_000
    )

    assert context.files == ["c.py", "a.py", "b.py"]
    assert context.text.count("### c.py") == 1
    assert context.text.index("### c.py") < context.text.index("### a.py")
    assert context.text.index("### a.py") < context.text.index("### b.py")


def test_prose_locations_name_no_file(project: Path) -> None:
    context = fix_context(project, ["general", "README section", "error handling"], 10_000)

    assert context.files == []
    assert context.ignored == ["general", "README section", "error handling"]
    assert context.text == "The review names no file to show.\n"


def test_a_named_file_that_does_not_exist_is_noted_as_not_found(project: Path) -> None:
    write(project, {"src/app.py": "APP = 1\n"})

    context = fix_context(project, ["src/app.py:1", "src/gone.py:3"], budget_tokens=10_000)

    assert context.files == ["src/app.py"]
    assert context.missing == ["src/gone.py"]
    assert "Referenced file not found (named by the review but not present): src/gone.py." in (
        context.text
    )


def test_paths_leading_out_of_the_project_are_never_read(project: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    (project / "leak.txt").symlink_to(secret)
    (project / "escape").symlink_to(tmp_path)
    write(project, {"src/app.py": "APP = 1\n"})
    git_repo.commit(project, "links committed, as an agent might")
    locations = [
        "../secret.txt",
        "../secret.txt:1",
        "src/../../secret.txt",
        str(secret),
        f"{secret}:3",
        "leak.txt:1",
        "escape/secret.txt",
        "escape/proj/../secret.txt",
    ]

    context = fix_context(project, locations, budget_tokens=10_000)

    assert SECRET not in context.text
    assert context.files == []
    assert context.missing == []
    assert "../secret.txt" in context.refused
    assert str(secret) in context.refused
    assert "leak.txt" in context.refused
    assert "escape/secret.txt" in context.refused


def test_a_symlink_to_a_file_inside_the_project_shows_that_file(project: Path) -> None:
    write(project, {"src/app.py": "APP = 1\n"})
    (project / "main.py").symlink_to("src/app.py")

    context = fix_context(project, ["main.py:1"], budget_tokens=10_000)

    assert context.files == ["src/app.py"]
    assert "APP = 1" in context.text


def test_thoughtforge_files_git_internals_and_ignored_files_are_refused(project: Path) -> None:
    write(
        project,
        {
            ".gitignore": "*.env\n",
            "local.env": "ENV-MARKER\n",
            "logo.png": b"\x00BINARY-MARKER",
            "app.py": "APP = 1\n",
        },
    )
    locations = [
        "status.json",
        "docs/constraints.md:3",
        ".scripted-agent/answers.json",
        ".git/config",
        "local.env:1",
        "logo.png",
        "app.py:1",
    ]

    context = fix_context(project, locations, budget_tokens=10_000)

    assert context.files == ["app.py"]
    assert context.refused == [
        "status.json",
        "docs/constraints.md",
        ".scripted-agent/answers.json",
        ".git/config",
        "local.env",
        "logo.png",
    ]
    assert context.missing == []
    for marker in ["STATUS", "CONSTRAINTS", "SCRIPTED", "ENV", "BINARY"]:
        assert f"{marker}-MARKER" not in context.text
    assert "[core]" not in context.text


def test_when_files_do_not_fit_only_the_largest_is_cut(project: Path) -> None:
    small = numbered("small", 20)
    large = numbered("large", 400)
    write(project, {"small.py": small, "large.py": large})
    budget = estimate_tokens(small) + estimate_tokens(large) // 2

    context = fix_context(project, ["small.py:1", "large.py:1"], budget_tokens=budget)

    assert context.truncated == ["large.py"]
    assert small in context.text
    assert "large_line_00000 = 0\n" in context.text
    assert "large_line_00399" not in context.text
    kept = context.text.split("### large.py (400 lines)\n```\n", 1)[1]
    kept = kept.split("\n[… truncated to fit the agent's context window …]\n```", 1)[0]
    assert large.startswith(kept + "\n")  # whole lines only
    assert (
        f"keeping the start of each file: large.py ({estimate_tokens(large):,} tokens in full)."
        in (context.text)
    )
    assert estimate_tokens(context.text) <= budget


def test_the_largest_is_cut_down_to_the_next_largest_before_it_is_cut_too(project: Path) -> None:
    files = {"a.py": numbered("a", 50), "b.py": numbered("b", 300), "c.py": numbered("c", 900)}
    write(project, files)
    sizes = {name: estimate_tokens(text) for name, text in files.items()}
    budget = sizes["a.py"] + 2 * sizes["b.py"] - 50  # room for a, and b and c cut alike

    context = fix_context(project, ["a.py", "b.py", "c.py"], budget_tokens=budget)

    assert context.truncated == ["b.py", "c.py"]
    assert files["a.py"] in context.text
    assert "b_line_00000" in context.text and "c_line_00000" in context.text
    assert "b_line_00299" not in context.text and "c_line_00899" not in context.text
    assert estimate_tokens(context.text) <= budget
