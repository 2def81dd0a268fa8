"""The Drive MIME types the connector tells apart, and the export each Docs Editors type is
pulled as."""

GOOGLE_DOC = "application/vnd.google-apps.document"
GOOGLE_SHEET = "application/vnd.google-apps.spreadsheet"
GOOGLE_SLIDES = "application/vnd.google-apps.presentation"
FOLDER = "application/vnd.google-apps.folder"
SHORTCUT = "application/vnd.google-apps.shortcut"
PDF = "application/pdf"
EXPORTS = {GOOGLE_DOC: "text/markdown", GOOGLE_SHEET: "text/csv", GOOGLE_SLIDES: "text/plain"}
"""The export each Docs Editors type is pulled as."""
