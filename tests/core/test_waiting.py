from __future__ import annotations

from pathlib import Path

from thoughtforge.core.project_log import read_events
from thoughtforge.core.state import utc_now
from thoughtforge.core.waiting import WAITING_FILE, Waiting, clear_wait, current_wait, record_wait
from thoughtforge.models import Phase


def _wait(key: str) -> Waiting:
    return Waiting(
        key=key,
        kind="IntakeTurn",
        phase=Phase.BRAIN_DUMP,
        chat_length=1,
        since=utc_now(),
        api_url="http://127.0.0.1:4200/api",
    )


def test_a_recorded_wait_is_read_back_until_cleared(tmp_path: Path) -> None:
    record_wait(tmp_path, _wait("intaketurn-brain-dump-1-5"))
    assert current_wait(tmp_path) == _wait("intaketurn-brain-dump-1-5").model_copy(
        update={"since": current_wait(tmp_path).since}  # type: ignore[union-attr]
    )
    clear_wait(tmp_path)
    assert current_wait(tmp_path) is None
    clear_wait(tmp_path)  # clearing twice is fine


def test_an_unreadable_record_counts_as_no_wait_and_is_logged(tmp_path: Path) -> None:
    (tmp_path / WAITING_FILE).write_text('{"key": 3')
    assert current_wait(tmp_path) is None
    assert [e["event"] for e in read_events(tmp_path)] == ["wait_record_unreadable"]
