from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from thoughtforge.core.state import (
    CHAT_ARCHIVE_FILE,
    ChatMessage,
    PolishState,
    Status,
    TrajectoryEntry,
    _read_archive,
    append_chat,
    check_state_files,
    clear_chat,
    mark_read,
    read_chat,
    read_polish_state,
    read_status,
    read_thread,
    utc_now,
    write_chat,
    write_polish_state,
    write_status,
)
from thoughtforge.errors import ProjectFileError, StateFileError
from thoughtforge.models import Issue, Phase, Severity


def _status() -> Status:
    now = utc_now()
    return Status(phase=Phase.BRAIN_DUMP, agent="demo", created_at=now, updated_at=now)


def test_status_round_trips_with_exactly_the_designed_fields(tmp_path: Path) -> None:
    status = _status()
    write_status(tmp_path, status)
    on_disk = json.loads((tmp_path / "status.json").read_text())
    assert set(on_disk) == {
        "project_name", "phase", "deliverable_type", "agent",
        "created_at", "updated_at", "halt_reason", "halted_from", "archived_at",
    }  # fmt: skip
    assert read_status(tmp_path) == status


def test_polish_state_round_trips(tmp_path: Path) -> None:
    state = PolishState(
        iteration=1,
        trajectory=[
            TrajectoryEntry(
                iteration=1,
                critical=1,
                medium=2,
                minor=3,
                total=6,
                fix_applied=True,
                timestamp=utc_now(),
            )
        ],
        last_issues=[Issue(severity=Severity.MEDIUM, description="Budget has no contingency")],
    )
    write_polish_state(tmp_path, state)
    assert read_polish_state(tmp_path) == state
    assert set(json.loads((tmp_path / "polish_state.json").read_text())) == {
        "iteration", "counts", "trajectory", "tests_passed", "completed",
        "halt_reason", "last_issues", "timestamp",
        # issue 33: accepted versions, the issues found per version, a pending second review,
        # and whether it ended at a plateau
        "versions", "concerns", "second_review", "plateau",
    }  # fmt: skip


def test_a_polish_state_written_before_versions_were_kept_still_reads(tmp_path: Path) -> None:
    old = {
        "iteration": 1,
        "counts": {"critical": 1, "medium": 0, "minor": 0},
        "trajectory": [
            {
                "iteration": 1, "critical": 1, "medium": 0, "minor": 0, "total": 1,
                "fix_applied": False, "timestamp": "2026-01-01T00:00:00+00:00",
            }
        ],
        "tests_passed": None, "completed": False, "halt_reason": None, "last_issues": [],
        "timestamp": "2026-01-01T00:00:00+00:00",
    }  # fmt: skip
    (tmp_path / "polish_state.json").write_text(json.dumps(old))
    state = read_polish_state(tmp_path)
    assert state.versions == {} and state.trajectory[0].fix is None and not state.plateau


def test_chat_history_is_a_json_array_and_appends(tmp_path: Path) -> None:
    write_chat(tmp_path, [])
    append_chat(tmp_path, ChatMessage(role="human", content="hello", phase=Phase.BRAIN_DUMP))
    append_chat(tmp_path, ChatMessage(role="ai", content="hi", phase=Phase.BRAIN_DUMP))
    raw = json.loads((tmp_path / "chat_history.json").read_text())
    assert [m["content"] for m in raw] == ["hello", "hi"]
    assert [m.role for m in read_chat(tmp_path)] == ["human", "ai"]


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b'{"phase": "brain_dump", "agent": "de', "not valid JSON"),
        (b"\xff\xfe garbage", "not valid JSON"),
        (b'{"phase": "sleeping", "agent": "demo"}', "does not match the schema"),
        (b"[]", "does not match the schema"),
    ],
)
def test_corrupt_status_raises_with_path_and_reason_and_is_left_alone(
    tmp_path: Path, content: bytes, reason: str
) -> None:
    path = tmp_path / "status.json"
    path.write_bytes(content)
    with pytest.raises(StateFileError) as caught:
        read_status(tmp_path)
    assert caught.value.path == path
    assert reason in caught.value.reason
    assert str(path) in str(caught.value)
    assert path.read_bytes() == content


def test_missing_files_raise_state_file_error(tmp_path: Path) -> None:
    for read in (read_status, read_polish_state, read_chat):
        with pytest.raises(StateFileError, match="missing"):
            read(tmp_path)


def test_invalid_phase_is_named_in_the_error(tmp_path: Path) -> None:
    data = json.loads(_status().model_dump_json())
    data["phase"] = "sleeping"
    (tmp_path / "status.json").write_text(json.dumps(data))
    with pytest.raises(StateFileError, match="phase"):
        read_status(tmp_path)


def test_corrupt_chat_history_is_not_overwritten_by_append(tmp_path: Path) -> None:
    (tmp_path / "chat_history.json").write_text('[{"role": "human", "cont')
    with pytest.raises(StateFileError):
        append_chat(tmp_path, ChatMessage(role="human", content="x", phase=Phase.BRAIN_DUMP))
    assert (tmp_path / "chat_history.json").read_text() == '[{"role": "human", "cont'


def test_failed_write_leaves_previous_file_and_no_temp_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_status(tmp_path, _status())
    before = (tmp_path / "status.json").read_text()

    def explode(self: Path, target: Path) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(Path, "replace", explode)
    with pytest.raises(OSError, match="disk full"):
        write_status(tmp_path, _status().model_copy(update={"phase": Phase.DISTILLING}))
    assert (tmp_path / "status.json").read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["status.json"]


def test_concurrent_appends_from_many_processes_keep_every_message(tmp_path: Path) -> None:
    """Before, appending was an unlocked read-modify-write: 4 of 8 concurrent messages survived."""
    write_chat(tmp_path, [])
    script = (
        "import sys\nfrom pathlib import Path\n"
        "from thoughtforge.core.state import ChatMessage, append_chat\n"
        "for k in range(5):\n"
        "    append_chat(Path(sys.argv[1]), ChatMessage(role='human', content=f'{sys.argv[2]}-{k}',"
        " phase='brain_dump'))\n"
    )
    writers = [
        subprocess.Popen([sys.executable, "-c", script, str(tmp_path), str(n)]) for n in range(8)
    ]
    assert [w.wait(timeout=120) for w in writers] == [0] * 8
    said = sorted(m.content for m in read_chat(tmp_path))
    assert said == sorted(f"{n}-{k}" for n in range(8) for k in range(5))


def test_check_state_files_names_the_first_unreadable_one(tmp_path: Path) -> None:
    now = utc_now()
    write_status(
        tmp_path, Status(phase=Phase.POLISHING, agent="demo", created_at=now, updated_at=now)
    )
    write_chat(tmp_path, [])
    check_state_files(tmp_path)
    (tmp_path / "chat_history.json").write_text("[{")
    with pytest.raises(StateFileError, match=r"chat_history\.json"):
        check_state_files(tmp_path)
    assert (tmp_path / "chat_history.json").read_text() == "[{"


def test_clearing_the_chat_moves_it_to_the_archive_once_and_the_thread_keeps_every_phase(
    tmp_path: Path,
) -> None:
    first = [
        ChatMessage(role="human", content="brain dump", phase=Phase.BRAIN_DUMP),
        ChatMessage(role="ai", content="distillation", phase=Phase.DISTILLING),
    ]
    write_chat(tmp_path, first)
    clear_chat(tmp_path)
    assert read_chat(tmp_path) == []
    append_chat(tmp_path, ChatMessage(role="ai", content="proposal", phase=Phase.SPEC_BUILDING))
    assert [m.content for m in read_thread(tmp_path)] == ["brain dump", "distillation", "proposal"]

    clear_chat(tmp_path)
    write_chat(tmp_path, read_thread(tmp_path)[2:])  # a crash after archiving, before clearing
    clear_chat(tmp_path)  # the next call finishes the job without archiving twice
    assert [m.content for m in read_thread(tmp_path)] == ["brain dump", "distillation", "proposal"]


_KILLED_AFTER_ARCHIVING = """
import os, signal, sys
from pathlib import Path
from thoughtforge.core import state

real_write = state.write_text_atomic

def write_then_die(path, text):
    real_write(path, text)
    if path.name == state.CHAT_ARCHIVE_FILE:
        os.kill(os.getpid(), signal.SIGKILL)  # between the archive's write and the history's

state.write_text_atomic = write_then_die
state.clear_chat(Path(sys.argv[1]))
"""


def test_a_process_killed_between_archiving_and_clearing_never_duplicates_or_loses_a_message(
    tmp_path: Path,
) -> None:
    """Before, a phase change killed after writing chat_archive.json, before emptying
    chat_history.json, showed those messages twice in the thread, for good: a message said
    meanwhile made the history no longer match the archive's end, so the next phase change archived
    them again."""
    first = [
        ChatMessage(role="human", content="brain dump", phase=Phase.BRAIN_DUMP),
        ChatMessage(role="ai", content="distillation", phase=Phase.DISTILLING),
    ]
    write_chat(tmp_path, first)
    killed = subprocess.run([sys.executable, "-c", _KILLED_AFTER_ARCHIVING, str(tmp_path)])
    assert killed.returncode == -signal.SIGKILL
    assert [m.content for m in _read_archive(tmp_path)] == ["brain dump", "distillation"]
    assert [m.content for m in read_chat(tmp_path)] == ["brain dump", "distillation"]

    append_chat(
        tmp_path, ChatMessage(role="human", content="said after", phase=Phase.SPEC_BUILDING)
    )
    expected = ["brain dump", "distillation", "said after"]
    assert [m.content for m in read_thread(tmp_path)] == expected
    clear_chat(tmp_path)  # the next phase change
    assert [m.content for m in read_thread(tmp_path)] == expected
    assert [m.content for m in _read_archive(tmp_path)] == expected


def test_the_next_run_start_finishes_an_archiving_a_kill_interrupted(tmp_path: Path) -> None:
    """The new phase's agent is given only its own phase's messages, also after the crash."""
    now = utc_now()
    write_status(
        tmp_path, Status(phase=Phase.SPEC_BUILDING, agent="demo", created_at=now, updated_at=now)
    )
    write_chat(tmp_path, [ChatMessage(role="ai", content="distillation", phase=Phase.DISTILLING)])
    killed = subprocess.run([sys.executable, "-c", _KILLED_AFTER_ARCHIVING, str(tmp_path)])
    assert killed.returncode == -signal.SIGKILL
    check_state_files(tmp_path)
    assert read_chat(tmp_path) == []
    assert [m.content for m in read_thread(tmp_path)] == ["distillation"]


def test_a_corrupt_archive_is_named_like_any_state_file(tmp_path: Path) -> None:
    write_chat(tmp_path, [])
    (tmp_path / CHAT_ARCHIVE_FILE).write_text("[{")
    with pytest.raises(StateFileError, match=CHAT_ARCHIVE_FILE):
        read_thread(tmp_path)


def test_a_state_file_that_is_a_link_is_never_read_or_written_through(tmp_path: Path) -> None:
    """An agent's `status.json → /elsewhere/file` is refused, naming the link; its target is
    left alone."""
    now = utc_now()
    elsewhere = tmp_path / "elsewhere.json"
    status = Status(phase=Phase.BRAIN_DUMP, agent="demo", created_at=now, updated_at=now)
    write_status(tmp_path, status)
    (tmp_path / "status.json").rename(elsewhere)
    (tmp_path / "status.json").symlink_to(elsewhere)
    before = elsewhere.read_text()
    with pytest.raises(StateFileError, match="is a symbolic link"):
        read_status(tmp_path)
    with pytest.raises(ProjectFileError, match=r"status\.json: is a symbolic link"):
        write_status(tmp_path, status)
    assert elsewhere.read_text() == before


def test_a_message_is_marked_read_once_and_an_unread_one_is_written_as_before(
    tmp_path: Path,
) -> None:
    old = [{"role": "human", "content": "Euros, please.", "phase": "polishing",
            "timestamp": "2026-11-20T10:00:00Z"}]  # fmt: skip
    (tmp_path / "chat_history.json").write_text(json.dumps(old))
    [message] = read_chat(tmp_path)
    assert message.read_by is None, "a file from before the field reads as unread"
    append_chat(
        tmp_path, ChatMessage(role="human", content="And metric units.", phase=Phase.POLISHING)
    )
    assert "read_by" not in (tmp_path / "chat_history.json").read_text()
    mark_read(tmp_path, [message], "polish iteration 2")
    mark_read(tmp_path, read_chat(tmp_path), "polish iteration 3")
    assert [m.read_by for m in read_chat(tmp_path)] == ["polish iteration 2", "polish iteration 3"]
