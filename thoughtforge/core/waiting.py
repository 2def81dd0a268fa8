"""The wait a project's run is in: which question it asked the human, under which key.

A run started from a deployment *suspends* while the human thinks: its process exits, and when
the answer arrives Prefect starts the flow again from the top. The re-entered run must meet the
same wait under the same key to be handed the answer, but a key computed from the files alone
would change whenever the human's own message is stored first (`thoughtforge say` does that, so
no Prefect problem can lose it). So the wait is recorded here before the run stops, and cleared
once its answer has been taken.

`.waiting.json` is a private working file (never committed). One that cannot be read is treated
as no wait: the run then asks again, and nothing the human said is lost, since every message is
in the chat.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ValidationError

from thoughtforge.catalogue import FORM_ACTIONS, cli_verbs
from thoughtforge.core.atomic_write import write_text_atomic
from thoughtforge.core.own_files import read_own_json
from thoughtforge.core.project_log import log_event
from thoughtforge.models import Phase

WAITING_FILE = ".waiting.json"
ANSWER_VERBS = {form: cli_verbs(actions) for form, actions in FORM_ACTIONS.items()}
"""The `thoughtforge` verbs that answer each kind of wait (its form's name), as hints name them."""
SOME_ANSWER = "say|confirm|resume|terminate"
"""The verbs a hint names for a wait of unknown kind."""


class Waiting(BaseModel):
    """A question put to the human: `chat_length` is the chat's length when it was asked."""

    key: str
    kind: str
    phase: Phase
    chat_length: int
    since: datetime
    flow_run_id: str | None = None
    api_url: str | None = None
    page: str | None = None

    @property
    def verbs(self) -> str:
        """The `thoughtforge` verbs that answer this wait."""
        return ANSWER_VERBS.get(self.kind, SOME_ANSWER)

    away: bool = False
    """The run stopped holding its process and suspended: its re-entry collects the answer."""


def record_wait(project_dir: Path, waiting: Waiting) -> Waiting:
    """Write the wait down before the run stops for it. Its `api_url` and `page` tell the CLI
    which Prefect server holds the run (a temporary one has a port nobody could guess)."""
    write_text_atomic(project_dir / WAITING_FILE, waiting.model_dump_json(indent=2) + "\n")
    return waiting


def current_wait(project_dir: Path) -> Waiting | None:
    """The recorded wait, or None (also for an unreadable record, which is logged)."""
    path = project_dir / WAITING_FILE
    try:
        return Waiting.model_validate(read_own_json(path))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, ValidationError) as exc:
        log_event(project_dir, "wait_record_unreadable", level="warning", error=str(exc)[:300])
        return None


def clear_wait(project_dir: Path) -> None:
    """The answer was taken: the next question gets a new key."""
    (project_dir / WAITING_FILE).unlink(missing_ok=True)
