"""Connectors that pull a Notion page or Google Drive document into resources/ as Markdown."""
