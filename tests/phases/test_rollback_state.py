"""Where a rollback leaves the project's phase and polish state, for each kind of target."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from thoughtforge.core.history import HistoryItem, classify
from thoughtforge.core.state import PolishState, Status, TrajectoryEntry
from thoughtforge.models import Counts, HaltReason, Phase
from thoughtforge.phases.revision import RevisionRefused
from thoughtforge.phases.rollback import target_state

T = datetime(2026, 1, 1, tzinfo=UTC)


def _item(subject: str, revision: int = 1) -> HistoryItem:
    kind, base, what = classify(subject)
    name = base if base is None or revision == 1 else f"r{revision}-{base}"
    return HistoryItem(
        commit="a" * 40, when=T, subject=subject, revision=revision, kind=kind, name=name, what=what
    )


def _polish(iterations: int, completed: bool = True) -> PolishState:
    trajectory = [
        TrajectoryEntry(
            iteration=n, critical=0, medium=n, minor=0, total=n, fix_applied=True, timestamp=T
        )
        for n in range(1, iterations + 1)
    ]
    return PolishState(
        iteration=iterations,
        counts=Counts(critical=0, medium=iterations, minor=0),
        trajectory=trajectory,
        completed=completed,
        halt_reason=HaltReason.GUARD_FIX_REGRESSION,
    )


def _status(phase: Phase, halted_from: Phase | None = None) -> Status:
    return Status(
        phase=phase, agent="demo", created_at=T, updated_at=T, halted_from=halted_from,
        halt_reason=HaltReason.STUCK if halted_from else None,
    )  # fmt: skip


def _fields(state: PolishState) -> dict[str, object]:
    return state.model_dump(exclude={"timestamp"})


@pytest.mark.parametrize(
    ("subject", "revision", "phase"),
    [
        ("Lock intent.md", 1, Phase.SPEC_BUILDING),
        ("Lock spec.md and constraints.md", 1, Phase.BUILDING),
        ("Phase 3 complete: plan built", 1, Phase.POLISHING),
        ("Phase 3 complete: revision 2 rebuilt Summary", 2, Phase.POLISHING),
    ],
)
def test_after_a_phase_end_the_next_phase_starts_with_no_polish_recorded(
    subject: str, revision: int, phase: Phase
) -> None:
    got, polish = target_state(_item(subject, revision), None, _polish(3))
    assert got is phase and _fields(polish) == _fields(PolishState())


def test_after_a_polish_iteration_its_trajectory_stays_and_the_loop_may_go_on() -> None:
    phase, polish = target_state(_item("fix #2: plan updated"), None, _polish(2))
    assert phase is Phase.POLISHING
    assert polish.iteration == 2 and [e.iteration for e in polish.trajectory] == [1, 2]
    assert not polish.completed and polish.halt_reason is None


def test_after_done_the_polish_state_is_as_it_was() -> None:
    phase, polish = target_state(_item("Done"), None, _polish(2))
    assert phase is Phase.DONE and _fields(polish) == _fields(_polish(2))


def test_any_commit_goes_back_to_the_phase_it_recorded_a_halt_to_the_phase_it_halted_in() -> None:
    item = _item("review #2: 1 critical")
    phase, _ = target_state(item, _status(Phase.HALTED, Phase.BUILDING), None)
    assert phase is Phase.BUILDING
    with pytest.raises(RevisionRefused, match="at most to the end of Phase 1"):
        target_state(item, _status(Phase.DISTILLING), None)
