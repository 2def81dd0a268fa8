"""ThoughtForge: brain dump -> intent -> spec -> built deliverable -> polished deliverable."""

__version__ = "0.1.0"
