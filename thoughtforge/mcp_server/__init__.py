"""ThoughtForge as an MCP server for agent tools: `tools` (what each tool does, over `actions`,
the functions the page and the CLI call), `runs` (starting a project's run), `server` (the SDK's
server, stdio or guarded HTTP), `client_config` (the entries to paste into an agent tool).

It sits beside `web`, above `actions` and `serving`: neither imports the other.
"""
