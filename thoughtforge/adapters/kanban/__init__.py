"""Kanban boards that mirror the projects: Vibe Kanban today."""

from thoughtforge.adapters.kanban.vibekanban import VibeKanbanBoard, server_url

__all__ = ["VibeKanbanBoard", "server_url"]
