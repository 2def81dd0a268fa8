"""ThoughtForge as an MCP server for agent tools: `tool_table` (the tools as the agent sees them,
`tool_types` what they take and return), `tools` (what each tool does, over `actions`, the
functions the page and the CLI call; loaded at the first call: the projects, spend and history
there, `turns` the person's answers and drafts, `documents` what a project made, on
`tool_base`'s config and project), `agent_words` (the page's notes naming tools instead of
buttons), `transports` (the server, stdio or guarded HTTP; `sdk_server` its refusals of bad
arguments), `client_config` (the entries to paste into an agent tool).

It sits beside `web`, above `actions` and `serving`: neither imports the other.
"""
