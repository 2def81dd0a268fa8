"""`rollback`, `revise` and `history` as a hostile round tries them: a person's uncommitted hand
edit is never overwritten (refused, naming it, or kept as their commit with --keep-edits), and a
commit subject holding any line break Python knows is read as one subject."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from subprocess import PIPE

import git
import pytest

from tests.build_setup import building_project
from tests.cli.test_drafts_and_archive import _run
from tests.conftest import REPO_ROOT
from thoughtforge.config import Config
from thoughtforge.core.git_repo import commit
from thoughtforge.core.project import Project
from thoughtforge.core.revisions import read_revisions
from thoughtforge.core.state import read_status, write_status
from thoughtforge.models import Phase

BUILT = "# Plan\n\n## Budget\n\nBudget 15k, first draft.\n"
FIXED = "# Plan\n\n## Budget\n\nBudget 15k, with a 10% contingency.\n"
HAND_EDIT = "# Plan\n\n## Budget\n\nBudget 15k. My own note: ask the caterer first.\n"


def _move(project: Project, phase: Phase) -> None:
    write_status(project.dir, read_status(project.dir).model_copy(update={"phase": phase}))


@pytest.fixture
def done(config: Config) -> Project:
    return done_project(config)


def done_project(config: Config) -> Project:
    """A plan project with Phase 3's end, a later fix and Done committed."""
    project = building_project(config)
    plan = project.dir / "docs" / "plan.md"
    plan.write_text(BUILT)
    _move(project, Phase.POLISHING)
    commit(project.dir, "Phase 3 complete: plan built")
    plan.write_text(FIXED)
    commit(project.dir, "fix #1: docs/plan.md updated")
    _move(project, Phase.DONE)
    commit(project.dir, "Done")
    return project


def test_rollback_over_a_hand_edit_is_refused_naming_it_and_keep_edits_commits_it_first(
    done: Project, tmp_path: Path
) -> None:
    plan = done.dir / "docs" / "plan.md"
    plan.write_text(HAND_EDIT)

    refused = _run(tmp_path, "rollback", done.id, "--to", "phase3")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    said = " ".join(refused.stderr.split())
    assert "docs/plan.md" in said and "--keep-edits" in said and "Traceback" not in said
    assert plan.read_text() == HAND_EDIT  # nothing was put back
    assert read_status(done.dir).phase is Phase.DONE

    kept = _run(tmp_path, "rollback", done.id, "--to", "phase3", "--keep-edits")
    assert kept.returncode == 0, kept.stdout + kept.stderr
    assert plan.read_text() == BUILT and read_status(done.dir).phase is Phase.POLISHING
    repo = git.Repo(done.dir)
    [mine] = [c for c in repo.iter_commits() if c.summary.startswith("Your uncommitted edits")]
    assert repo.git.show(f"{mine.hexsha}:docs/plan.md") + "\n" == HAND_EDIT
    listed = _run(tmp_path, "history", done.id)
    assert "Your uncommitted edits, kept before you asked to roll back to phase3" in listed.stdout


def test_revise_over_a_hand_edit_is_refused_and_records_no_revision(
    done: Project, tmp_path: Path
) -> None:
    plan = done.dir / "docs" / "plan.md"
    plan.write_text(HAND_EDIT)
    refused = _run(tmp_path, "revise", done.id, "The budget is 12k now.")
    assert refused.returncode == 1 and "docs/plan.md" in " ".join(refused.stderr.split())
    assert plan.read_text() == HAND_EDIT
    assert read_revisions(done.dir).current == 1 and read_status(done.dir).phase is Phase.DONE


def test_a_commit_subject_with_any_line_break_leaves_history_and_rollback_working(
    done: Project, tmp_path: Path
) -> None:
    plan = done.dir / "docs" / "plan.md"
    plan.write_text(FIXED + "An agent's line.\n")
    subject = "agent\u2028wrote\x85this\x1eand\x1fthat\r\x1cend"
    subprocess.run(
        ["git", "-C", str(done.dir), "commit", "-qam", subject, "--cleanup=verbatim"], check=True
    )

    for args in (("history", done.id), ("history", done.id, "--named")):
        shown = _run(tmp_path, *args)
        assert shown.returncode == 0 and "Traceback" not in shown.stderr, shown.stderr
        assert "phase3" in shown.stdout and "phase4" in shown.stdout
    listing = _run(tmp_path, "history", done.id).stdout
    assert "agent" in listing and "end" in listing

    done_commit = git.Repo(done.dir).head.commit.parents[0].hexsha
    to_commit = _run(tmp_path, "rollback", done.id, "--to", done_commit[:12])
    assert to_commit.returncode == 0, to_commit.stdout + to_commit.stderr
    assert plan.read_text() == FIXED
    to_name = _run(tmp_path, "rollback", done.id, "--to", "phase3")
    assert to_name.returncode == 0, to_name.stdout + to_name.stderr
    assert plan.read_text() == BUILT


@pytest.mark.slow
def test_two_rollback_commands_started_together_one_proceeds_the_other_is_told_what_holds_it(
    done: Project, tmp_path: Path
) -> None:
    """Two CLI processes at once, round after round: the one that takes the project's claim
    rolls back (one commit), the other exits 1 naming the rollback that holds the project, and
    nothing is half-done. Rounds that do not overlap roll back twice, each whole."""
    repo = git.Repo(done.dir)
    command = [sys.executable, "-m", "thoughtforge", "rollback", done.id, "--to", "phase3"]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(REPO_ROOT)}
    held = re.compile(
        rf"error: a rollback started by pid \d+ on this machine at \d\d:\d\d holds project "
        rf"{done.id}; try again when it ends"
    )
    refused = 0
    for _ in range(6):
        before = _rollback_commits(repo)
        both = [
            subprocess.Popen(command, cwd=tmp_path, env=env, stdout=PIPE, stderr=PIPE, text=True)
            for _ in range(2)
        ]
        ended = [process.communicate(timeout=120) for process in both]
        codes = sorted(process.returncode for process in both)
        assert codes in ([0, 0], [0, 1]), ended
        for process, (_, stderr) in zip(both, ended, strict=True):
            if process.returncode == 1:
                assert held.search(" ".join(stderr.split())), stderr
                refused += 1
        assert _rollback_commits(repo) == before + codes.count(0)
        assert read_status(done.dir).phase is Phase.POLISHING and not repo.is_dirty()
        if refused >= 2:
            break
    assert refused, "the two commands never overlapped in six rounds"


def _rollback_commits(repo: git.Repo) -> int:
    return sum(c.summary.startswith("Rollback to ") for c in repo.iter_commits())


def test_history_diff_reads_in_words_and_leaves_escapes_inert(
    done: Project, tmp_path: Path
) -> None:
    plan = done.dir / "docs" / "plan.md"
    plan.write_text(FIXED.replace("contingency", "contingency \x1b]52;c;cHduZWQ=\x07[bold]x[/]"))
    commit(done.dir, "fix #2: docs/plan.md updated")
    shown = _run(tmp_path, "history", done.id, "--diff", _last_commit(done))
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert shown.stdout.startswith("docs/plan.md — changed in 1 place\n  line 5, under “Budget”:")
    assert "{+ \\x1b]52;c;cHduZWQ=\\x07[bold]x[/]+}" in shown.stdout
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout
    assert "@@" not in shown.stdout


def _last_commit(project: Project) -> str:
    return git.Repo(project.dir).head.commit.hexsha[:10]
