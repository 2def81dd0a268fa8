"""The project on disk: its folder, state files, git repo, run lock, log, and `transition()`.

Everything else stands on this; it imports only the shared vocabulary (`thoughtforge.config`,
`errors`, `models`) and never an adapter, a phase or Prefect. The notifier and board that
`transition()` calls are protocols defined here (`hooks`) and implemented by the adapters.
"""

from thoughtforge.core import git_repo
from thoughtforge.core.atomic_write import write_text_atomic
from thoughtforge.core.creation import brain_dump_text, create_project, safe_file_name
from thoughtforge.core.hooks import (
    Board,
    EventType,
    Notification,
    Notifier,
    NullBoard,
    NullNotifier,
    add_transition_listener,
)
from thoughtforge.core.orphans import halt_orphaned_projects
from thoughtforge.core.processes import end_leftover_processes, track_process, untrack_process
from thoughtforge.core.project import (
    CONSTRAINTS_FILE,
    INTENT_FILE,
    PLAN_FILE,
    SPEC_FILE,
    Project,
    ProjectListing,
    list_projects,
    load_project,
    open_project,
)
from thoughtforge.core.project_log import LOG_FILE, log_event, read_events
from thoughtforge.core.run_lock import LOCK_FILE, hold_run_lock, is_running
from thoughtforge.core.staging import (
    POLISH_LOG_FILE,
    POLISHED_TAG,
    REVIEW_FILE,
    Changes,
    changes,
    commit_own,
    mark_polished,
)
from thoughtforge.core.state import (
    CHAT_HISTORY_FILE,
    POLISH_STATE_FILE,
    STATUS_FILE,
    ChatHistory,
    ChatMessage,
    PolishState,
    Status,
    TrajectoryEntry,
    append_chat,
    check_state_files,
    read_chat,
    read_polish_state,
    read_status,
    utc_now,
    write_chat,
    write_polish_state,
    write_status,
)
from thoughtforge.core.transition import TransitionHooks, transition
from thoughtforge.core.waiting import Waiting, clear_wait, current_wait, record_wait

__all__ = [
    "CHAT_HISTORY_FILE",
    "CONSTRAINTS_FILE",
    "INTENT_FILE",
    "LOCK_FILE",
    "LOG_FILE",
    "PLAN_FILE",
    "POLISHED_TAG",
    "POLISH_LOG_FILE",
    "POLISH_STATE_FILE",
    "REVIEW_FILE",
    "SPEC_FILE",
    "STATUS_FILE",
    "Board",
    "Changes",
    "ChatHistory",
    "ChatMessage",
    "EventType",
    "Notification",
    "Notifier",
    "NullBoard",
    "NullNotifier",
    "PolishState",
    "Project",
    "ProjectListing",
    "Status",
    "TrajectoryEntry",
    "TransitionHooks",
    "Waiting",
    "add_transition_listener",
    "append_chat",
    "brain_dump_text",
    "changes",
    "check_state_files",
    "clear_wait",
    "commit_own",
    "create_project",
    "current_wait",
    "end_leftover_processes",
    "git_repo",
    "halt_orphaned_projects",
    "hold_run_lock",
    "is_running",
    "list_projects",
    "load_project",
    "log_event",
    "mark_polished",
    "open_project",
    "read_chat",
    "read_events",
    "read_polish_state",
    "read_status",
    "record_wait",
    "safe_file_name",
    "track_process",
    "transition",
    "untrack_process",
    "utc_now",
    "write_chat",
    "write_polish_state",
    "write_status",
    "write_text_atomic",
]
