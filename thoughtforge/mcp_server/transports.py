"""`thoughtforge mcp`: ThoughtForge's projects as an MCP server, on the official `mcp` SDK.

Over stdio (what an agent tool launches) or streamable HTTP (`--http`): bound to 127.0.0.1
unless told otherwise, every request must name a loopback host, an IP address or one of
`web.allowed_hosts` with the server's port (DNS rebinding), come from no other site's page
(`Origin`), and carry the server's bearer token (`mcp-token` beside the config, made once, kept
private; `--print-config` shows it).

Each tool is a function of `tool_table.TOOLS`, handed `tools.Tools`, run in a worker thread (they
read files and wait for the run); a refusal reaches the agent as a tool error in the CLI's and
the page's words.
"""

from __future__ import annotations

import functools
import inspect
import logging
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, get_args

from pydantic import ValidationError
from starlette.datastructures import Headers

from thoughtforge.config import Config, state_dir
from thoughtforge.errors import ThoughtForgeError, schema_problems
from thoughtforge.mcp_server.agent_words import for_agent
from thoughtforge.mcp_server.documents import read_document
from thoughtforge.mcp_server.stdio_transport import MAX_LINE_CHARS
from thoughtforge.mcp_server.tool_hints import HINTS
from thoughtforge.mcp_server.tool_table import TOOLS
from thoughtforge.mcp_server.tool_types import RESOURCE_URI, Document
from thoughtforge.serving.guard import RequestGuard

if TYPE_CHECKING:
    from thoughtforge.mcp_server.tools import Tools

F = TypeVar("F", bound=Callable[..., Any])
TOKEN_FILE = "mcp-token"
HTTP_PATH = "/mcp"
DEFAULT_PORT = 8766
INSTRUCTIONS = (
    "ThoughtForge turns a person's brain dump into a polished plan or working code in four "
    "phases: distil it with the person (Phase 1), agree a spec (Phase 2), build (Phase 3), "
    "polish (Phase 4). The person decides; relay ThoughtForge's questions and proposals to them "
    "and answer with their words.\n"
    "- Start: create_project (its run starts), then send_message to add or answer and distill "
    "when everything is said; realign drops a wrong turn.\n"
    "- Agree: confirm locks the distilled intent (it returns the spec proposal), then the spec "
    "(build and polish run). read_draft and edit_draft change a draft before confirm. If "
    "your client can ask the person (elicitation), ask_person shows them the question (a draft "
    "to confirm or correct, a halt to decide) and takes their answer into the run.\n"
    "- Follow: list_projects and project_status say what each project waits for and the "
    "actions it takes now; read_thread shows the conversation.\n"
    "- When stuck or halted: provide_input answers a stuck build; decide resumes, overrides or "
    "terminates a halt; spend shows the spend and budget and raises it; continue_project "
    "starts a run of a project nothing works on.\n"
    "- Results: read_document (deliverable, spec, constraints, polish-log, traceability),\n"
    "  read_polish_record.\n"
    "- Afterwards: revise asks a done project for a change and returns the revised proposal; "
    "history and rollback restore an earlier version; archive_project and unarchive_project "
    "tidy the list.\n"
    "Tools that answer the AI wait up to wait_seconds and return its reply; reply_complete "
    "false means it is still coming (read_thread later)."
)


def build_server(config_file: Path, config: Config) -> Any:
    """The MCP server with ThoughtForge's tools (`tool_table.TOOLS`) and resources."""
    from mcp.server.mcpserver.exceptions import ResourceError

    from thoughtforge.mcp_server.sdk_server import ThoughtForgeServer

    tools = _first_call(config_file, config)
    server: Any = ThoughtForgeServer(tools, instructions=INSTRUCTIONS, version=package_version())
    for tool in TOOLS:
        server.tool(annotations=HINTS[tool.__name__])(_bound(tool, tools))
    for document in get_args(Document):
        _add_document_resource(server, tools, document, ResourceError)
    return server


def _first_call(config_file: Path, config: Config) -> Callable[[], Tools]:
    """The tools, made at the first call: they load the pipeline's actions, which listing the
    tools does not need (an agent tool starts its servers often, and waits for the list). From
    then on this process's transitions update the board and notify, as a CLI command's do."""

    @functools.cache
    def tools() -> Tools:
        from thoughtforge.actions.announcing import announce_from_this_process
        from thoughtforge.mcp_server.tools import Tools

        announce_from_this_process(config_file, config)
        return Tools(config_file, config)

    return tools


def _bound(tool: Callable[..., Any], tools: Callable[[], Tools]) -> Callable[..., Any]:
    """`tool` with `tools()` given, its signature (what the SDK shows the agent) without it; its
    refusals reach the agent in ThoughtForge's words: the SDK shows only `ToolError`'s text,
    and hides any other exception's."""
    from mcp.server.mcpserver.exceptions import ToolError

    @functools.wraps(tool)
    def refusing(*args: Any, **kwargs: Any) -> Any:
        try:
            return tool(tools(), *args, **kwargs)
        except ThoughtForgeError as exc:
            raise ToolError(for_agent(str(exc))) from None
        except ValidationError as exc:
            raise ToolError(f"bad request: {schema_problems(exc)}") from None

    signature = inspect.signature(tool, eval_str=True, locals={"Tools": object})
    shown = list(signature.parameters.values())[1:]
    refusing.__signature__ = signature.replace(parameters=shown)  # type: ignore[attr-defined]
    refusing.__annotations__ = {p.name: p.annotation for p in shown}  # what the SDK resolves
    refusing.__annotations__["return"] = signature.return_annotation
    return refusing


def package_version() -> str:
    """The installed package's version: what the server tells a client it is."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("thoughtforge")
    except PackageNotFoundError:
        return "unknown"


def _add_document_resource(
    server: Any, tools: Callable[[], Tools], document: Document, error: type
) -> None:
    def read(project_id: str) -> str:
        try:
            return read_document(tools(), project_id, document)
        except (ThoughtForgeError, OSError, UnicodeDecodeError) as exc:
            raise error(str(exc)) from None

    server.resource(
        RESOURCE_URI.replace("{document}", document),
        name=f"project-{document}",
        description=f"A project's {document}",
        mime_type="text/markdown",
    )(read)


def run_stdio(config_file: Path, config: Config) -> None:
    """Until the client closes stdin (`stdio_transport`)."""
    from thoughtforge.mcp_server.stdio_transport import serve_stdio

    _quiet_logs()
    serve_stdio(build_server(config_file, config))


def run_http(config_file: Path, config: Config, host: str, port: int) -> None:
    """Until SIGINT/SIGTERM; prints where it listens."""
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    from thoughtforge.serving.guard import NON_LOOPBACK_WARNING, is_loopback
    from thoughtforge.serving.listening import listen

    _quiet_logs()
    if not is_loopback(host):
        print(f"WARNING: {NON_LOOPBACK_WARNING}", flush=True)
    listener = listen(host, port, what="the MCP server", setting="--port")
    port = listener.getsockname()[1]
    app = build_server(config_file, config).streamable_http_app(
        streamable_http_path=HTTP_PATH,
        # `BearerGuard` does the Host and Origin checks, with the workbench's rules
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    guarded = BearerGuard(
        app, token=http_token(config_file), port=port, allowed_hosts=config.web.allowed_hosts
    )
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    print(f"MCP server at http://{shown}:{port}{HTTP_PATH} (Ctrl-C stops it)", flush=True)
    server = uvicorn.Server(
        uvicorn.Config(guarded, log_level="warning", access_log=False, timeout_graceful_shutdown=1)
    )
    server.run(sockets=[listener])


class BearerGuard(RequestGuard):
    """The workbench's Host and Origin rules, and the server's token as a bearer token on every
    request (an agent tool sends it as a header; there is no page to get it from)."""

    def _refusal(self, method: str, headers: Headers) -> tuple[int, str] | None:
        if (refusal := self._misdirected(headers) or self._cross_site(headers)) is not None:
            return refusal
        sent = headers.get("authorization", "")
        if not secrets.compare_digest(sent.encode(), f"Bearer {self.token}".encode()):
            return 401, (
                "Refused: the bearer token is missing or wrong "
                "(`thoughtforge mcp --print-config --http` shows it).\n"
            )
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_LINE_CHARS:  # answered, never read
            return 413, (
                f"Refused: a message over thoughtforge mcp's cap of {MAX_LINE_CHARS:,} "
                "characters was not read; put long text in a file (brain_dump_file).\n"
            )
        return None


def http_token(config_file: Path) -> str:
    """The HTTP transport's token: made once, kept beside the config, readable by its owner; an
    empty file (truncated, or emptied by hand) is as none, and a new token replaces it."""
    path = state_dir(config_file) / TOKEN_FILE
    try:
        if kept := path.read_text().strip():
            return kept
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f"{TOKEN_FILE}.{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(secrets.token_urlsafe(32))
    temporary.rename(path)
    return path.read_text().strip()  # two first starts at once: both serve the one kept


def _quiet_logs() -> None:
    """stdout is the protocol's channel over stdio: the SDK's logs go to stderr, warnings only."""
    logging.getLogger("mcp").setLevel(logging.WARNING)
