"""What a person can do to a project, one module a thing: the one implementation the page
(`web`), the command line (`cli`) and the MCP server (`mcp_server`) all call, so the three doors
store the person's words the same way and refuse with the same words.

It is also what the doors read: typed read models of a project (`project_page`, `thread`,
`draft`, `history`, `documents`, `progress`, `board_page`; a new project's form,
`new_project_form`), so a door imports `actions` and never reaches past it
(`tests/test_import_graph.py`).

Plain Python over `phases`, `core` and Prefect's REST API (`stack`); never Prefect itself, never
a door.
"""
