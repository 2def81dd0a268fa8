"""What a person can do to a project, one module a thing: the one implementation the page
(`web`), the command line (`cli`) and the MCP server (`mcp_server`) all call, so the three doors
store the person's words the same way and refuse with the same words.

Plain Python over `phases`, `core` and Prefect's REST API (`stack`); never Prefect itself, never
a door.
"""
