"""One answer from the page reads the project's view once: what it takes now is checked, and
what follows (a run started, the words kept) decided, from that one read. Counted at the one
opener every project file is read through (`tests.state_reads`); before issue 57 the same answer
read `status.json` 4 times, `.starting.json` 4, `.waiting.json` 3 and `revisions.json` 2."""

from __future__ import annotations

import pytest

from tests.state_reads import counted_reads, state_reads
from tests.web.conftest import Bench
from tests.web.test_app import _project, _wait
from thoughtforge.core.course_claim import STARTING_FILE
from thoughtforge.core.revisions import REVISIONS_FILE
from thoughtforge.core.state import STATUS_FILE
from thoughtforge.core.waiting import WAITING_FILE


def test_a_page_answer_reads_the_project_view_once(
    bench: Bench, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(bench)
    _wait(project, "IntakeTurn")
    with counted_reads(monkeypatch) as reads:
        answer = bench.post(
            f"/projects/{project.id}/answer", {"action": "distill", "message": "A cellist."}
        )
    assert answer.json()["delivery"] == "no_run"
    print("page answer reads:", dict(reads))
    # the view's files once; status.json once more as the message is stored in its phase
    assert state_reads(reads) == {
        STATUS_FILE: 2,
        WAITING_FILE: 1,
        STARTING_FILE: 1,
        REVISIONS_FILE: 1,
    }, reads
