"""The yardstick for `thoughtforge mcp`'s start: a one-tool server on the same SDK, over stdio."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("minimal")


@server.tool()
def echo(text: str) -> str:
    """Say `text` back."""
    return text


if __name__ == "__main__":
    server.run("stdio")
