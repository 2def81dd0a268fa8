"""Serving a door over local HTTP, for the page (`web`) and the MCP server (`mcp_server`) alike:
the listening socket (`listening`) and the guard every request passes (`guard`: Host, Origin,
token). Neither door imports the other's modules; both import these."""
