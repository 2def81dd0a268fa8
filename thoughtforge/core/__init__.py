"""The project on disk: its folder, state files, git repo, run lock, log, and `transition()`.

Everything else stands on this; it imports only the shared vocabulary (`config`, `errors`,
`models` and the rest of layer 1) and never an adapter, a phase or Prefect. The notifier and
board that `transition()` calls are protocols defined here (`hooks`) and implemented by the
adapters.

Import from its modules (`thoughtforge.core.state`): this package re-exports nothing.
"""
