"""The walks of issue 57, counted (no timers): what a page answer, `thoughtforge run` and an MCP
`revise` go through on their way to the agent.

One instrument (`Walk`) counts, while it is on, in every thread of its process:
- `files`: the distinct source files of `thoughtforge/` any of whose functions run during the
  walk (`sys.setprofile`, so imports done before the walk do not count and functions called
  from Prefect or pydantic do): everything the walk touches, helpers and models included;
- `chain`: the files on the call stack at the walk's crossing (the page's request to Prefect;
  the run's agent call), from the door's frames (the endpoint that hands the answer to a worker
  thread) or from where the run's wait returned to: the files a reader follows from the answer
  to the agent;
- `view_reads`: calls of `core.project_view.read_view`;
- `state_reads`: opens of a project's state files (`sys.addaudithook`'s `open` events);
- `prefect`: requests to Prefect's REST API (`stack.api`: `PrefectApi.call` and the health check
  `server_state`, each one request; the retries of a busy server's 503 not counted);
- `config_parses`: `Config.model_validate` calls (a config file read, parsed and validated);
- `plugin_loads`: plugin sets imported (`phases.plugin_loader`'s loads not served from its cache).

The walks:
- page answer: `thoughtforge run <brain dump>` in a process of its own (under this module's probe:
  `bench_walks.py probe RECORD -- ARGS`) waits for the person in Phase 1; the page's POST
  /projects/{id}/answer `distill` is counted in this process (the workbench under uvicorn, as the
  tests run it), and the run's process counts from its wait's return to its next agent call.
  Its files, and its chain, are the union of the two processes' (one source file is one file,
  whichever process runs it).
- `thoughtforge run` → first agent call: the same run's process, from its start to its first agent
  call.
- MCP revise: `Tools.answer(id, "revise", ...)` on a done project, in this process, its run
  started as a pid (the run is a process of its own, counted in the run walk). One view read,
  under the revision's claim, which the revision starts from and the turn's `now` is told from
  (with what the revision wrote): `status.json` 2 (the view's, and `transition`'s own read of
  the status it replaces), `.waiting.json` and `revisions.json` 1, `.starting.json` 4 (the
  claim taken and let go); before: 2 view reads, `status.json` and `revisions.json` 4 each,
  `.waiting.json` 2, `polish_state.json` 1, `.starting.json` 5, 3 Prefect requests (now 2).

Needs a Prefect server: a temporary one (Prefect's test harness) is started. Run:
`.venv/bin/python bench/bench_walks.py` (about a minute).
"""

from __future__ import annotations

import json
import os
import runpy
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PACKAGE = REPO / "thoughtforge"
STATE_NAMES = frozenset(
    {
        "status.json",
        ".waiting.json",
        ".starting.json",
        ".run.lock",
        "revisions.json",
        "polish_state.json",
    }
)
"""The files a project's view is read from (`core.project_view`)."""
READ_VIEW = ("thoughtforge/core/project_view.py", "read_view")
WAIT_RETURNS = ("thoughtforge/flows/human_input.py", "wait_for_human")
AGENT_CALL = ("thoughtforge/adapters/agents/invoke.py", "invoke_agent")
PLUGIN_LOAD = ("thoughtforge/phases/plugin_loader.py", "_load_all")
PREFECT_CALL = ("thoughtforge/stack/api.py", "call")
HEALTH_CHECK = ("thoughtforge/stack/api.py", "server_state")
TO_A_WORKER = ("starlette/concurrency.py", "run_in_threadpool")
MODEL_VALIDATE = ("pydantic/main.py", "model_validate")


@dataclass
class Walk:
    """What one walk went through; see the module's docstring."""

    files: set[str] = field(default_factory=set)
    chain: list[str] = field(default_factory=list)
    crossed: bool = False
    view_reads: int = 0
    state_reads: Counter[str] = field(default_factory=Counter)
    prefect: list[str] = field(default_factory=list)
    config_parses: int = 0
    plugin_loads: int = 0

    def figures(self) -> dict[str, Any]:
        return {
            "files": len(self.files),
            "chain": len(self.chain),
            "view_reads": self.view_reads,
            "state_reads": dict(sorted(self.state_reads.items())),
            "prefect_requests": len(self.prefect),
            "config_parses": self.config_parses,
            "plugin_loads": self.plugin_loads,
        }


class Instrument:
    """Counts into `walk` while one is set (`counting`), in this thread and every thread started
    while it is on (`with Instrument():`); its audit hook stays, idle, once it is off (an audit
    hook cannot be removed)."""

    def __init__(self) -> None:
        self.walks: list[Walk] = []
        self.on_call: Callable[[str, FrameType], None] = lambda _name, _frame: None
        self._kinds: dict[CodeType, tuple[str | None, tuple[str, str]]] = {}
        sys.addaudithook(self._audit)

    def __enter__(self) -> Instrument:
        threading.setprofile(self._profile)
        sys.setprofile(self._profile)
        return self

    def __exit__(self, *exc: object) -> None:
        self.walks = []
        threading.setprofile(None)
        sys.setprofile(None)

    @contextmanager
    def counting(self) -> Iterator[Walk]:
        walk = Walk()
        self.walks = [*self.walks, walk]
        try:
            yield walk
        finally:
            self.walks = [w for w in self.walks if w is not walk]

    def _kind(self, code: CodeType) -> tuple[str | None, tuple[str, str]]:
        found = self._kinds.get(code)
        if found is None:
            path = code.co_filename
            mine = path.startswith(str(PACKAGE) + os.sep)
            relative = path[len(str(PACKAGE)) + 1 :] if mine else None
            where = path.replace(os.sep, "/")
            named = next(
                (
                    place
                    for place in (
                        READ_VIEW,
                        WAIT_RETURNS,
                        AGENT_CALL,
                        PLUGIN_LOAD,
                        PREFECT_CALL,
                        HEALTH_CHECK,
                        TO_A_WORKER,
                        MODEL_VALIDATE,
                    )
                    if where.endswith("/" + place[0]) and code.co_name == place[1]
                ),
                ("", ""),
            )
            found = (relative, named)
            self._kinds[code] = found
        return found

    def _profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event not in ("call", "return"):
            return
        relative, named = self._kind(frame.f_code)
        if event == "return":
            if named == WAIT_RETURNS:
                self.on_call(named[1], frame)
            return
        if named != ("", ""):
            self.on_call(named[1], frame)
        for walk in self.walks:
            self._count(walk, frame, relative, named)

    def _count(
        self, walk: Walk, frame: FrameType, relative: str | None, named: tuple[str, str]
    ) -> None:
        if relative is not None:
            walk.files.add(relative)
        if named == READ_VIEW:
            walk.view_reads += 1
        elif named == PLUGIN_LOAD:
            walk.plugin_loads += 1
        elif named == TO_A_WORKER and not walk.chain:
            walk.chain = chain(frame)  # the door's frames, which a worker thread's stack lacks
        elif named == PREFECT_CALL:
            if not walk.crossed:
                walk.crossed = True
                walk.chain = [*chain(frame), *(f for f in walk.chain if f not in chain(frame))]
            api = frame.f_locals["self"].url
            walk.prefect.append(f"{frame.f_locals['method']} {api}{frame.f_locals['path']}")
        elif named == HEALTH_CHECK:
            walk.prefect.append(f"GET {frame.f_locals['url']}/health")
        elif named == MODEL_VALIDATE:
            cls = frame.f_locals.get("cls")
            if getattr(cls, "__qualname__", "") == "Config" and "thoughtforge" in getattr(
                cls, "__module__", ""
            ):
                walk.config_parses += 1

    def _audit(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.walks or event != "open" or not isinstance(args[0], (str, Path)):
            return
        name = Path(args[0]).name
        if name in STATE_NAMES:
            for walk in self.walks:
                walk.state_reads[name] += 1


def chain(frame: FrameType | None, since: list[FrameType] = []) -> list[str]:  # noqa: B006
    """The `thoughtforge/` files on the stack from `frame` outwards, each once, innermost first;
    up to and with the first frame of `since` met (a stack seen before), else to the outermost."""
    files: list[str] = []
    while frame is not None:
        path = frame.f_code.co_filename
        if path.startswith(str(PACKAGE) + os.sep):
            relative = path[len(str(PACKAGE)) + 1 :]
            if relative not in files:
                files.append(relative)
        if any(frame is seen for seen in since):
            break
        frame = frame.f_back
    return files


def stack_of(frame: FrameType | None) -> list[FrameType]:
    frames = []
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    return frames


# --- the run's process ------------------------------------------------------------------------


def probe(record: Path, argv: list[str]) -> None:
    """`thoughtforge ARGV` counted: from its start to its first agent call (`start`), and from
    each wait's return to the next agent call (`takeover`), each written to `record` as a JSON
    line when its agent call comes."""
    instrument = Instrument().__enter__()  # for the process's life
    open_walks: dict[str, Walk] = {"start": Walk()}
    instrument.walks = [open_walks["start"]]
    returned_to: list[FrameType] = []

    def on_call(name: str, frame: FrameType) -> None:
        if name == WAIT_RETURNS[1]:
            open_walks["takeover"] = Walk()
            returned_to[:] = stack_of(frame.f_back)
        elif name == AGENT_CALL[1]:
            with record.open("a") as out:
                for segment, walk in open_walks.items():
                    since = returned_to if segment == "takeover" else []
                    walk.chain = chain(frame, since)
                    line = {
                        "segment": segment,
                        **walk.figures(),
                        "file_list": sorted(walk.files),
                        "chain_list": walk.chain,
                    }
                    out.write(json.dumps(line) + "\n")
            open_walks.clear()
        else:
            return
        instrument.walks = list(open_walks.values())

    instrument.on_call = on_call
    sys.argv = ["thoughtforge", *argv]
    runpy.run_module("thoughtforge", run_name="__main__", alter_sys=True)


def _segments(record: Path) -> list[dict[str, Any]]:
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text().splitlines() if line.strip()]


def _until(check: Callable[[], Any], what: str, seconds: float = 180.0) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.2)
    raise SystemExit(f"timed out waiting for {what}")


# --- the walks --------------------------------------------------------------------------------


@dataclass
class Walks:
    page_web: Walk
    run_takeover: dict[str, Any]
    run_start: dict[str, Any]
    revise: Walk


def page_answer_and_run(
    instrument: Instrument, folder: Path, api_url: str
) -> tuple[Walk, dict[str, Any], dict[str, Any]]:
    """The page answer's web request (counted here) and the run's two segments (its probe)."""
    import httpx
    import uvicorn
    import yaml

    from tests.conftest import config_data
    from tests.vibe_kanban import free_port
    from thoughtforge.config import load_config
    from thoughtforge.core.waiting import current_wait
    from thoughtforge.web.app import create_app

    config_file = folder / "config.yaml"
    config_file.write_text(yaml.safe_dump(config_data(folder)))
    brain_dump = folder / "bd.md"
    brain_dump.write_text((REPO / "examples" / "wedding-plan.md").read_text())
    record = folder / "walks.jsonl"
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(folder),
        "PREFECT_HOME": str(folder / ".prefect"),
        "PREFECT_API_URL": api_url,
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PYTHONPATH": str(REPO),
        "THOUGHTFORGE_SCRIPT": str(REPO / "tests" / "agents" / "plan_script.yaml"),
    }
    command = [sys.executable, __file__, "probe", str(record), "--", "--config", str(config_file)]
    run = subprocess.Popen(
        [*command, "run", str(brain_dump)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        projects = folder / "projects"

        def waiting_project() -> str | None:
            for found in projects.glob("*") if projects.exists() else []:
                if not found.name.startswith(".") and current_wait(found) is not None:
                    return found.name
            return None

        project_id = _until(waiting_project, "the run's first question")
        config = load_config(config_file)
        config.web.port = free_port()
        token = "bench-token-0123456789"
        server = uvicorn.Server(
            uvicorn.Config(
                create_app(config_file, config, token=token),
                host="127.0.0.1",
                port=config.web.port,
                log_level="warning",
            )
        )
        thread = threading.Thread(target=server.run, daemon=True)
        with instrument:  # on in the server's threads from their start
            thread.start()
            _until(lambda: server.started, "the workbench", 30)
            url = f"http://127.0.0.1:{config.web.port}/projects/{project_id}/answer"
            headers = {"X-ThoughtForge-Token": token}
            with instrument.counting() as web:
                answered = httpx.post(url, json={"action": "distill"}, headers=headers, timeout=60)
        web.prefect = [r for r in web.prefect if r.split(" ", 1)[1].startswith(api_url)]
        print("page answer:", answered.json())
        segments = _until(
            lambda: len(_segments(record)) >= 2 and _segments(record), "the run's next agent call"
        )
        server.should_exit = True
        thread.join(10)
    finally:
        os.killpg(run.pid, signal.SIGKILL)
        output = run.communicate()[0]
        if os.environ.get("BENCH_WALKS_DEBUG"):
            print(output.decode(errors="replace")[-4000:], _segments(record))
    start = next(s for s in segments if s["segment"] == "start")
    takeover = next(s for s in segments if s["segment"] == "takeover")
    return web, takeover, start


def mcp_revise(instrument: Instrument, folder: Path) -> Walk:
    """An MCP `revise` on a done project; the run it starts is handed a pid (its process's own
    reads are the run walk's)."""
    import yaml

    from tests.cli.test_after_done_hostile import done_project
    from tests.conftest import config_data
    from thoughtforge.actions import process_run
    from thoughtforge.config import load_config
    from thoughtforge.mcp_server.tools import Tools

    config_file = folder / "mcp-config.yaml"
    config_file.write_text(yaml.safe_dump(config_data(folder / "mcp")))
    tools = Tools(config_file, load_config(config_file))
    project = done_project(tools.config)
    real_start = process_run._start_cli_run
    process_run._start_cli_run = lambda config_file, project: os.getpid()
    try:
        with instrument, instrument.counting() as walk:
            turn = tools.answer(project.id, "revise", "The budget is 12k now.", 0)
    finally:
        process_run._start_cli_run = real_start
    print("mcp revise:", turn.delivery)
    return walk


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "probe":
        at = sys.argv.index("--")
        probe(Path(sys.argv[2]), sys.argv[at + 1 :])
        return
    from prefect.settings import PREFECT_API_URL
    from prefect.testing.utilities import prefect_test_harness

    instrument = Instrument()
    with tempfile.TemporaryDirectory(prefix="bench-walks-") as name:
        folder = Path(name)
        revise = mcp_revise(instrument, folder)
        with prefect_test_harness(server_startup_timeout=120):
            api_url = str(PREFECT_API_URL.value())
            web, takeover, start = page_answer_and_run(instrument, folder, api_url)
    both = web.files | set(takeover["file_list"])
    chained = set(web.chain) | set(takeover["chain_list"])
    report = {
        "page answer (web request)": {**web.figures(), "prefect": web.prefect},
        "page answer (run: wait's return -> agent call)": {
            k: v for k, v in takeover.items() if not k.endswith("_list")
        },
        "page answer, files across both processes": len(both),
        "page answer, files on its call chain across both processes": len(chained),
        "thoughtforge run -> first agent call": {
            k: v for k, v in start.items() if not k.endswith("_list")
        },
        "mcp revise": revise.figures(),
    }
    print(json.dumps(report, indent=2))
    if "-v" in sys.argv:
        print("web files:", sorted(web.files))
        print("run files:", takeover["file_list"])
        print("web chain:", web.chain)
        print("run chain:", takeover["chain_list"])


if __name__ == "__main__":
    main()
