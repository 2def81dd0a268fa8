"""How an agent's Markdown document is read in every phase (`reading`: what lies around it
stripped, a glued or cut answer refused), and whether it may become the deliverable: one
validator per plugin, one typed verdict (`verdict`), asked at every build, fix and revision. A
document's shared check is `document_check` (read by `reading`; whole: `whole_document`; its
tables: `markdown_tables`); a plugin declares its own through the contract (`validation.py`)."""
