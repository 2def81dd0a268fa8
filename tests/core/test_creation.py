"""Creating projects: checked first, built aside, put in place whole, one at a time."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import git
import pytest

from tests.conftest import BRAIN_DUMP
from thoughtforge.config import Config, load_config
from thoughtforge.core.creation import brain_dump_text, create_project
from thoughtforge.core.project import list_projects
from thoughtforge.core.safe_names import safe_file_name
from thoughtforge.core.state import read_chat, read_status, write_status
from thoughtforge.errors import ConfigError, ProjectError, ProjectLimitError, ThoughtForgeError
from thoughtforge.models import HaltReason, Phase


def test_creates_directories_repo_state_and_one_commit(config: Config, tmp_path: Path) -> None:
    resource = tmp_path / "notes.md"
    resource.write_text("venue ideas")
    project = create_project(config, brain_dump=BRAIN_DUMP, resources=[resource])
    assert project.docs_dir.is_dir() and project.resources_dir.is_dir()
    assert (project.resources_dir / "notes.md").read_text() == "venue ideas"
    status = read_status(project.dir)
    assert status.phase is Phase.BRAIN_DUMP and status.agent == "demo"
    assert status.project_name is None and status.halt_reason is None
    assert [(m.role, m.content) for m in read_chat(project.dir)] == [("human", BRAIN_DUMP)]
    repo = git.Repo(project.dir)
    assert [c.summary for c in repo.iter_commits()] == ["Create project"]
    committed = {item.path for item in repo.head.commit.tree.traverse()}
    assert {"status.json", "chat_history.json", "resources/notes.md"} <= committed
    assert "thoughtforge.log" not in committed
    assert not repo.is_dirty(untracked_files=True)


def test_without_brain_dump_chat_history_is_empty(config: Config) -> None:
    project = create_project(config)
    assert read_chat(project.dir) == []


def test_ids_are_readable_and_unique(config: Config) -> None:
    ids = {create_project(config, brain_dump=BRAIN_DUMP).id for _ in range(3)}
    assert len(ids) == 3
    for project_id in ids:
        assert "small-wedding" in project_id


@pytest.mark.parametrize(
    ("brain_dump", "slug"),
    [
        ("ok so we're getting married in June", "ok-so-were-getting"),
        ("We\u2019re opening a café—bakery next spring", "were-opening-cafe-bakery"),
        ("I'm writing the 'launch' plan", "writing-launch-plan"),
        ("日本語だけ", "project"),
    ],
)
def test_an_id_keeps_each_word_whole(config: Config, brain_dump: str, slug: str) -> None:
    """Before, "we're" became "re" and "café" became "caf"."""
    project_id = create_project(config, brain_dump=brain_dump).id
    assert project_id.split("-", 1)[1].rsplit("-", 1)[0] == slug


def test_id_collision_is_retried(config: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    first = create_project(config, brain_dump=BRAIN_DUMP)
    suffixes = iter([first.id.rsplit("-", 1)[1], "beef"])
    monkeypatch.setattr("thoughtforge.core.creation.secrets.token_hex", lambda _: next(suffixes))
    second = create_project(config, brain_dump=BRAIN_DUMP)
    assert second.id.endswith("-beef")


def test_hostile_resource_names_stay_inside_resources(config: Config, tmp_path: Path) -> None:
    hostile = tmp_path / "$(rm -rf ~) `x`;|.md"
    hostile.write_text("x")
    hidden = tmp_path / ".bashrc"
    hidden.write_text("y")
    project = create_project(config, resources=[hostile, hidden])
    names = sorted(p.name for p in project.resources_dir.iterdir() if p.name != ".gitkeep")
    assert names == ["bashrc", "rm -rf x.md"]
    assert safe_file_name("../../etc/passwd") == "passwd"


def test_bad_resource_refuses_before_anything_is_written(config: Config, tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match="not a readable file"):
        create_project(config, brain_dump=BRAIN_DUMP, resources=[tmp_path / "missing.pdf"])
    assert list_projects(config) == []


def test_concurrency_limit_counts_halted_but_not_done_or_terminated(
    write_config: Callable[..., Path],
) -> None:
    config = load_config(write_config(concurrency={"max_parallel_runs": 2}))
    a = create_project(config)
    b = create_project(config)
    with pytest.raises(ProjectLimitError, match=r"Maximum parallel projects reached \(2/2\)"):
        create_project(config)
    _set(b.dir, phase=Phase.HALTED, halt_reason=HaltReason.GUARD_MAX_ITERATIONS)
    with pytest.raises(ProjectLimitError):
        create_project(config)
    _set(b.dir, phase=Phase.HALTED, halt_reason=HaltReason.HUMAN_TERMINATED)
    create_project(config)
    _set(a.dir, phase=Phase.DONE)
    create_project(config)
    with pytest.raises(ProjectLimitError):
        create_project(config)


def test_unknown_agent_is_refused(config: Config) -> None:
    with pytest.raises(Exception, match=r"agent 'gpt9' is not in agents\.available"):
        create_project(config, agent="gpt9")


def _set(project_dir: Path, **fields: object) -> None:
    write_status(project_dir, read_status(project_dir).model_copy(update=fields))


def test_an_oversized_resource_is_skipped_before_anything_is_committed(
    write_config: Callable[..., Path], tmp_path: Path
) -> None:
    """Before, the file was copied and committed, then skipped by Phase 1."""
    config = load_config(write_config(resources={"max_file_bytes": 1000}))
    big, small = tmp_path / "big.pdf", tmp_path / "notes.md"
    big.write_bytes(b"x" * 2000)
    small.write_text("keep me")
    project = create_project(config, brain_dump=BRAIN_DUMP, resources=[big, small])
    assert sorted(p.name for p in project.resources_dir.iterdir()) == [".gitkeep", "notes.md"]
    tree = git.Repo(project.dir).head.commit.tree
    assert [b.name for b in (tree / "resources").blobs] == [".gitkeep", "notes.md"]
    notice = read_chat(project.dir)[-1]
    assert (notice.role, notice.content) == (
        "system",
        "File 'big.pdf' exceeds size limit and was skipped.",
    )


def test_state_files_follow_the_users_umask(config: Config) -> None:
    """Before, every state file was created 0600, unreadable to a team's shared group."""
    previous = os.umask(0o027)
    try:
        project = create_project(config, brain_dump=BRAIN_DUMP)
    finally:
        os.umask(previous)
    for name in ("status.json", "chat_history.json"):
        assert stat.S_IMODE((project.dir / name).stat().st_mode) == 0o640, name


def test_concurrent_creations_never_exceed_the_project_limit(
    write_config: Callable[..., Path],
) -> None:
    """Before, three concurrent `new` with max_parallel_runs 1 created three projects."""
    path = write_config(concurrency={"max_parallel_runs": 1})
    go = path.parent / "go"
    script = (
        "import sys, time\nfrom pathlib import Path\nfrom thoughtforge.config import load_config\n"
        "from thoughtforge.core.creation import create_project\n"
        "from thoughtforge.errors import ProjectLimitError\n"
        "config = load_config(Path(sys.argv[1]))\n"
        "while not Path(sys.argv[2]).exists():\n    time.sleep(0.001)\n"
        "try:\n    create_project(config, brain_dump='x')\n"
        "except ProjectLimitError:\n    sys.exit(3)\n"
    )
    makers = [
        subprocess.Popen([sys.executable, "-c", script, str(path), str(go)]) for _ in range(4)
    ]
    time.sleep(2)  # every maker imported and waiting: they start creating at once
    go.touch()
    codes = sorted(m.wait(timeout=120) for m in makers)
    assert codes == [0, 3, 3, 3]
    assert len(list_projects(load_config(path))) == 1


def test_a_creation_killed_midway_leaves_no_project_and_is_cleaned_up(
    config: Config, write_config: Callable[..., Path], tmp_path: Path
) -> None:
    """Before, kill -9 during `new` left a half-made project that later commands tripped over."""
    started = tmp_path / "started"
    script = (
        "import sys, time\nfrom pathlib import Path\nfrom thoughtforge.config import load_config\n"
        "from thoughtforge.core import creation\n"
        "def stall(*args, **kwargs):\n    Path(sys.argv[2]).touch()\n    time.sleep(600)\n"
        "creation.commit = stall\n"
        "creation.create_project(load_config(Path(sys.argv[1])), brain_dump='x')\n"
    )
    maker = subprocess.Popen([sys.executable, "-c", script, str(write_config()), str(started)])
    try:
        for _ in range(600):
            if started.exists():
                break
            time.sleep(0.05)
        assert started.exists(), "the creation never reached its commit"
    finally:
        maker.kill()
        maker.wait()
    root = config.projects.directory
    assert list_projects(config) == []
    assert [p.name.startswith(".creating-") for p in root.iterdir()] == [True]
    project = create_project(config, brain_dump=BRAIN_DUMP)
    assert [p.name for p in root.iterdir()] == [project.id]


MULTI_LINE = "# Wedding\n\n- venue: booked?\n- budget = 15k\n\n«naïve» quotes and = signs\n"


def test_a_brain_dump_file_arrives_intact_by_parameter_or_by_at_path(tmp_path: Path) -> None:
    path = tmp_path / "bd.md"
    path.write_text(MULTI_LINE, encoding="utf-8")
    assert brain_dump_text("", str(path)) == MULTI_LINE
    assert brain_dump_text(f"@{path}", "") == MULTI_LINE
    assert brain_dump_text(MULTI_LINE, "") == MULTI_LINE  # text is never read as a path
    assert brain_dump_text("@mention in the first line\nand more", "").startswith("@mention")


def test_bad_brain_dump_parameters_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not both"):
        brain_dump_text("text", str(tmp_path / "bd.md"))
    with pytest.raises(ThoughtForgeError, match=r"cannot read brain_dump_file .*missing\.md"):
        brain_dump_text("", str(tmp_path / "missing.md"))
    (tmp_path / "latin1.md").write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(ThoughtForgeError, match="cannot read brain_dump_file"):
        brain_dump_text(f"@{tmp_path / 'latin1.md'}", "")
