"""Boards: where each project stands, drawn in the terminal, on the workbench's board page, or on
Vibe Kanban."""
