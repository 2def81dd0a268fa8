"""A checklist is a document: the plan's rules (Markdown under docs/ and ThoughtForge's state
files only; agents answer in text, never run or install anything)."""

from thoughtforge.plugins.plan.safety import validate

__all__ = ["validate"]
