"""A card's description, as boards that show one read it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from thoughtforge.board.cards import card_of, describe
from thoughtforge.core import Status
from thoughtforge.models import HaltReason, Phase

NOW = datetime(2026, 11, 26, tzinfo=UTC)


def test_a_polish_halt_card_says_what_to_do_beside_its_reason(tmp_path: Path) -> None:
    status = Status(
        phase=Phase.HALTED,
        agent="demo",
        created_at=NOW,
        updated_at=NOW,
        halt_reason=HaltReason.GUARD_FIX_CIRCULAR,
        halted_from=Phase.POLISHING,
    )
    text = describe(card_of("p-1", tmp_path, status))
    assert "**Halt reason:** guard_fix_circular — the fixer keeps undoing its own changes" in text
