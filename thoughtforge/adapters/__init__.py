"""Adapters to the outside world: agent CLIs (`agents/`), the Vibe Kanban board (`kanban/`) and
the notification channels (`notify/`), the last two implementing `thoughtforge.core.hooks`.

Entry points install the board and the channels with `announce.announce_transitions`; their
calls run on the courier's thread (`courier`), never on the pipeline's path. Every HTTP call
goes through `http.request`."""
