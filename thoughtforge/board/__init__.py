"""Boards: where each project stands, drawn in the terminal, on a web page, or on Vibe Kanban."""
