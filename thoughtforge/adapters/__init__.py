"""Adapters to the outside world: agent CLIs, the Kanban board, notification channels."""
