"""Whether an agent's answer may become the deliverable: one validator per plugin, one typed
verdict (`verdict`), asked at every build, fix and revision. A document's shared check is
`document_check` (what lies around it: `outside_text`; whole: `whole_document`; its tables:
`markdown_tables`); a plugin declares its own through the contract (`validation.py`)."""
