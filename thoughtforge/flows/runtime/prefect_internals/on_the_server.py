"""The Prefect internals of the API server: its SQLite transactions, and the forced state `down`
sets. Their checks read Prefect's server source, never importing it."""

from __future__ import annotations

from thoughtforge.flows.runtime.prefect_internals.shape import Internal, defined_with

SQLITE_IMMEDIATE = "sqlite-immediate"
FORCED_STATE = "forced-state"


def _sqlite_immediate() -> None:
    defined_with(
        "prefect.server.database.configurations",
        "AioSqliteConfiguration.begin_transaction",
        *("session", "with_for_update"),
    )


def _forced_state() -> None:
    defined_with("prefect.server.api.flow_runs", "set_flow_run_state", "state", "force")


ON_THE_SERVER: tuple[Internal, ...] = (
    Internal(
        SQLITE_IMMEDIATE,
        "prefect.server.database.configurations.AioSqliteConfiguration.begin_transaction",
        "flows/runtime/prefect_server.py",
        "SQLite transactions take the write lock when they begin, so a busy moment waits "
        "instead of answering 503",
        "a write meeting another one fails and is retried about 2 s later (the UI's Resume form "
        "may say 'Something went wrong')",
        _sqlite_immediate,
        upstream="PrefectHQ/prefect#10956",
    ),
    Internal(
        FORCED_STATE,
        "POST /flow_runs/{id}/set_state with force=true",
        "stack/api.py (`down`)",
        "`down` marks the runs it stopped Cancelled",
        "runs stopped by `down` stay Running (or Crashed) in the UI",
        _forced_state,
    ),
)
