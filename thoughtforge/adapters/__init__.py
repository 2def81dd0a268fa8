"""Adapters to the outside world. Today: agent CLIs (`agents/`); the Kanban board and the
notification channels join here, implementing `thoughtforge.core.hooks`."""
