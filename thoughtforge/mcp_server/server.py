"""`thoughtforge mcp`: ThoughtForge's projects as an MCP server, on the official `mcp` SDK.

Over stdio (what an agent tool launches) or streamable HTTP (`--http`): bound to 127.0.0.1
unless told otherwise, every request must name a loopback host, an IP address or one of
`web.allowed_hosts` with the server's port (DNS rebinding), come from no other site's page
(`Origin`), and carry the server's bearer token (`mcp-token` beside the config, made once, kept
private; `--print-config` shows it).

Each tool is one of `tools.Tools`' functions, run in a worker thread (they read files and wait
for the run); a refusal reaches the agent as a tool error in the CLI's and the page's words.
"""

from __future__ import annotations

import functools
import logging
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import Field, ValidationError
from starlette.datastructures import Headers

from thoughtforge.config import Config, state_dir
from thoughtforge.errors import ThoughtForgeError, schema_problems
from thoughtforge.mcp_server.tools import (
    DOCUMENTS,
    MAX_TEXT_CHARS,
    MAX_WAIT_SECONDS,
    RESOURCE_URI,
    Decision,
    Message,
    Tools,
    Turn,
)
from thoughtforge.web.guard import RequestGuard

F = TypeVar("F", bound=Callable[..., Any])
TOKEN_FILE = "mcp-token"
HTTP_PATH = "/mcp"
DEFAULT_PORT = 8766
INSTRUCTIONS = (
    "ThoughtForge turns a brain dump into a polished plan or working code in four phases: distil "
    "it with the person (Phase 1), agree a spec (Phase 2), build (Phase 3), polish (Phase 4). "
    "create_project starts one; list_projects says what each project waits for; the chat tools "
    "answer Phases 1-2 and return the AI's reply; decide answers a halt; read_document reads "
    "what a project made. Revise and rollback do not exist yet."
)

ProjectId = Annotated[
    str, Field(max_length=200, description="The project id (list_projects gives them).")
]
Text = Annotated[str, Field(max_length=MAX_TEXT_CHARS)]
WaitSeconds = Annotated[
    float,
    Field(
        ge=0,
        le=MAX_WAIT_SECONDS,
        description="How long to wait for the AI's reply (0: do not wait).",
    ),
]


def build_server(config_file: Path, config: Config) -> Any:
    """The MCP server with ThoughtForge's tools and resources."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceError, ToolError

    tools = Tools(config_file, config)
    server: Any = MCPServer("thoughtforge", instructions=INSTRUCTIONS)

    def tool() -> Callable[[F], F]:
        """A tool whose refusals reach the agent in ThoughtForge's words: the SDK shows only
        `ToolError`'s text, and hides any other exception's."""

        def decorate(fn: F) -> F:
            @functools.wraps(fn)
            def refusing(*args: Any, **kwargs: Any) -> Any:
                try:
                    return fn(*args, **kwargs)
                except ThoughtForgeError as exc:
                    raise ToolError(str(exc)) from None
                except ValidationError as exc:
                    raise ToolError(f"bad request: {schema_problems(exc)}") from None

            server.tool()(refusing)
            return fn

        return decorate

    @tool()
    def create_project(
        brain_dump: Text = "",
        brain_dump_file: Annotated[
            str, Field(max_length=4096, description="A file with the brain dump, on this machine.")
        ] = "",
        agent: Annotated[
            str | None, Field(max_length=100, description="An agent from agents.available.")
        ] = None,
        deliverable_type: Annotated[
            str, Field(max_length=40, description="A hint: plan or code (or a plugin's type).")
        ] = "",
        resources: Annotated[
            list[Annotated[str, Field(max_length=4096)]] | None,
            Field(max_length=50, description="Files on this machine for the project's resources/."),
        ] = None,
    ) -> dict[str, Any]:
        """Create a project from a brain dump (text, or a file) and start its run; it then waits
        for the person in Phase 1 (use distill when everything is said)."""
        return tools.create_project(brain_dump, brain_dump_file, agent, deliverable_type, resources)

    @tool()
    def list_projects(
        include_archived: Annotated[
            bool, Field(description="Also list the archived projects (marked archived).")
        ] = False,
    ) -> dict[str, Any]:
        """Every project but the archived ones, those waiting for the person first with what
        they wait for."""
        return tools.list_projects(include_archived)

    @tool()
    def archive_project(project_id: ProjectId) -> dict[str, Any]:
        """Archive a finished, terminated or halted project (a halted one is parked, its halt
        kept): out of the project list and the active count, its folder and history kept.
        Refused for a project in progress or one a run is working on."""
        return tools.archive(project_id)

    @tool()
    def unarchive_project(project_id: ProjectId) -> dict[str, Any]:
        """Bring an archived project back to the project list."""
        return tools.unarchive(project_id)

    @tool()
    def project_status(project_id: ProjectId) -> dict[str, Any]:
        """One project: its phase, halt, and the actions it takes now."""
        return tools.project_status(project_id)

    @tool()
    def read_thread(
        project_id: ProjectId,
        last: Annotated[int, Field(ge=1, le=500, description="How many messages.")] = 20,
    ) -> list[Message]:
        """The project's last messages (the person's, the AI's, notices), oldest first."""
        return tools.read_thread(project_id, last)

    @tool()
    def send_message(project_id: ProjectId, message: Text, wait_seconds: WaitSeconds = 120) -> Turn:
        """Say something to the project: an answer, a correction, more of the brain dump. In
        Phases 3-4 it is guidance read at the next build step or polish iteration."""
        return tools.answer(project_id, "send", message, wait_seconds)

    @tool()
    def distill(project_id: ProjectId, wait_seconds: WaitSeconds = 120) -> Turn:
        """Phase 1: everything is said; distil it into the intent for review."""
        return tools.answer(project_id, "distill", "", wait_seconds)

    @tool()
    def realign(project_id: ProjectId, wait_seconds: WaitSeconds = 120) -> Turn:
        """Phase 1: drop the messages after the last real correction and distil again."""
        return tools.answer(project_id, "realign", "", wait_seconds)

    @tool()
    def confirm(
        project_id: ProjectId,
        accept_unresolved: Annotated[
            bool, Field(description="Phase 2: lock the spec with its open items as unresolved.")
        ] = False,
        wait_seconds: WaitSeconds = 120,
    ) -> Turn:
        """Confirm the distilled intent (Phase 1) or the spec proposal (Phase 2)."""
        action = "accept_unresolved" if accept_unresolved else "confirm"
        return tools.answer(project_id, action, "", wait_seconds)

    @tool()
    def decide(
        project_id: ProjectId,
        decision: Decision,
        confirm_terminate: Annotated[
            bool, Field(description="Must be true for terminate: it ends the project for good.")
        ] = False,
        message: Text = "",
        wait_seconds: WaitSeconds = 30,
    ) -> Turn:
        """Decide a halted project: resume it, override (accept a halted polish loop's
        deliverable, or build from a refused plan), or terminate it (any step; needs
        confirm_terminate)."""
        return tools.decide(project_id, decision, confirm_terminate, message, wait_seconds)

    @tool()
    def provide_input(project_id: ProjectId, message: Text, wait_seconds: WaitSeconds = 30) -> Turn:
        """Phase 3: give a stuck build the input it asked for."""
        return tools.answer(project_id, "provide_input", message, wait_seconds)

    @tool()
    def continue_project(project_id: ProjectId) -> Turn:
        """Start a run of a project nothing works on, from where its files say it stopped."""
        return tools.answer(project_id, "start", "", 0)

    @tool()
    def revise(project_id: ProjectId, change: Text, wait_seconds: WaitSeconds = 120) -> Turn:
        """Ask for a change to a done (or halted) project: back to Phase 2 with its current spec
        and this change request; the agent proposes the revised spec (confirm it as usual),
        then only what the change touches is rebuilt and polished (revision 2, 3, ...)."""
        return tools.answer(project_id, "revise", change, wait_seconds)

    @tool()
    def history(project_id: ProjectId) -> list[dict[str, Any]]:
        """The project's phase ends, polish iterations and commits, oldest first, with what each
        was; a `name` (or commit id) is what `rollback` takes."""
        return tools.history(project_id)

    @tool()
    def rollback(
        project_id: ProjectId,
        to: Annotated[
            str, Field(max_length=200, description="A name from `history`, or a commit id.")
        ],
        keep_edits: Annotated[
            bool,
            Field(description="Commit uncommitted edits of the files first, as the person's."),
        ] = False,
    ) -> dict[str, str]:
        """Restore the project's files to a phase end, polish iteration or commit with a new
        commit (history is kept) and set its phase and polish state to match; refused while a
        run works on the project, and over uncommitted edits unless keep_edits."""
        return tools.rollback(project_id, to, keep_edits)

    @tool()
    def read_document(
        project_id: ProjectId,
        document: Annotated[
            str,
            Field(
                max_length=40,
                description=f"deliverable, {', '.join(DOCUMENTS)}",
            ),
        ] = "deliverable",
    ) -> str:
        """The project's deliverable, spec, constraints or polish log (Markdown)."""
        return tools.read_document(project_id, document)

    @tool()
    def read_polish_record(project_id: ProjectId) -> dict[str, Any]:
        """Phase 4's record: the trajectory (issues by severity per iteration) and each
        iteration's issues, fixes, guards and verdict."""
        return tools.read_polish_record(project_id)

    for document in ("deliverable", *DOCUMENTS):
        _add_document_resource(server, tools, document, ResourceError)
    return server


def _add_document_resource(server: Any, tools: Tools, document: str, error: type) -> None:
    def read(project_id: str) -> str:
        try:
            return tools.read_document(project_id, document)
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

    from thoughtforge.web.guard import NON_LOOPBACK_WARNING, is_loopback
    from thoughtforge.web.server import _bind

    _quiet_logs()
    if not is_loopback(host):
        print(f"WARNING: {NON_LOOPBACK_WARNING}", flush=True)
    listener = _bind(host, port)
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
        return None


def http_token(config_file: Path) -> str:
    """The HTTP transport's token: made once, kept beside the config, readable by its owner."""
    path = state_dir(config_file) / TOKEN_FILE
    try:
        return path.read_text().strip()
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
