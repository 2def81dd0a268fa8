"""A scripted stand-in for an AI agent, for demos and tests. It is not an AI.

It reads the prompt on stdin like any agent, and replies from a script file chosen by the step
ThoughtForge names in `THOUGHTFORGE_STEP`. Script format (YAML):

    steps:
      plan-review:                   # one reply for every call
        text: '{"issues": []}'
      brain-dump-intake:             # replies in call order; the last one repeats
        - file: intake-1.md          # relative to the script file
        - text: "..."
      plan-fix:
        by_iteration:                # chosen by THOUGHTFORGE_ITERATION
          1: {echo_after: "Plan:\\n\\n"}
          default: {text: "..."}

An reply is one of `text`, `file`, `template`, `echo` (the whole prompt) or `echo_after` (the
prompt after the last occurrence of a marker), optionally with `append` (text added after it, its
`{iteration}` replaced by `THOUGHTFORGE_ITERATION`: a fixer that changes the document each time),
`sleep` (seconds before replying), `exit` (exit code) and `stderr`. A `template` is a file
whose `$names` are filled with the brain dump's own sentences (`demo_words`), JSON-escaped in a
`.json` file: how the built-in demo script replies each brain dump with its own words. A
`revision` reply applies a change request as the demo does (`demo_revision`): `proposal` (the
spec in a revision, else the reply's other source), `sections` (the sections it touches) or
`section` (one section rewritten). A review reply with `evidence` (the marker the reviewed
document follows in the prompt, as `echo_after`) adds to its JSON text the passage of the
document that shares the most words with each acceptance criterion (`demo_evidence`).

A coding agent's reply also acts on the project, as a real coding agent with write access does:
`write` maps paths (relative to the project directory) to their new text and `delete` lists paths to
remove, both applied before it replies (and before a non-zero `exit`, so a failed attempt can leave
a half-written tree behind). A path leading outside the project is refused.

Call counts and a copy of every prompt received are kept in `.scripted-agent/` in the project
directory.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any, Literal, cast, get_args

import yaml

from thoughtforge.adapters.agents.demo_evidence import with_evidence
from thoughtforge.bounded_input import MAX_CONFIG_BYTES, InputRefused, load_yaml, read_capped_text
from thoughtforge.core.own_files import read_own_json

DEMO_SCRIPT = Path(__file__).with_name("demo_script.yaml")
SCRIPT_ENV_VAR = "THOUGHTFORGE_SCRIPT"
STATE_DIR_NAME = ".scripted-agent"
EXIT_NO_REPLY = 3
Revision = Literal["proposal", "sections", "section"]


@dataclass(frozen=True)
class Reply:
    """One reply of the script. A dataclass read by `_reply_of`, not a pydantic model: the agent
    is a new process at every call, and pydantic would be most of its start-up."""

    text: str | None = None
    file: str | None = None
    template: str | None = None
    echo: bool = False
    echo_after: str | None = None
    append: str = ""
    sleep: float = 0
    exit: int = 0
    stderr: str = ""
    write: dict[str, str] = field(default_factory=dict)
    delete: list[str] = field(default_factory=list)
    revision: Revision | None = None
    evidence: str | None = None


@dataclass(frozen=True)
class ByIteration:
    by_iteration: dict[str, Reply]


StepScript = Reply | list[Reply] | ByIteration


@dataclass(frozen=True)
class Script:
    steps: dict[str, StepScript]


_TEXT = (str, type(None))
_KINDS: dict[str, tuple[type, ...]] = {
    "text": _TEXT,
    "file": _TEXT,
    "template": _TEXT,
    "echo": (bool,),
    "echo_after": _TEXT,
    "append": (str,),
    "sleep": (int, float),
    "exit": (int,),
    "stderr": (str,),
    "write": (dict,),
    "delete": (list,),
    "revision": _TEXT,
    "evidence": _TEXT,
}
_REVISIONS: tuple[str, ...] = get_args(Revision)


def _script_of(raw: object) -> Script:
    steps = _mapping(raw, "the script", {"steps"}).get("steps")
    return Script(
        steps={
            str(step): _step_of(entry, f"steps.{step}")
            for step, entry in _mapping(steps, "steps").items()
        }
    )


def _step_of(raw: object, where: str) -> StepScript:
    if isinstance(raw, list):
        return [_reply_of(item, f"{where}[{n}]") for n, item in enumerate(raw)]
    if isinstance(raw, dict) and "by_iteration" in raw:
        table = _mapping(raw, where, {"by_iteration"})["by_iteration"]
        return ByIteration(
            by_iteration={
                str(key): _reply_of(reply, f"{where}.by_iteration.{key}")
                for key, reply in _mapping(table, f"{where}.by_iteration").items()
            }
        )
    return _reply_of(raw, where)


def _reply_of(raw: object, where: str) -> Reply:
    """A reply as the script gives it, checked as strictly as its fields are typed."""
    given = _mapping(raw, where, set(_KINDS))
    for key, value in given.items():
        counted = key in ("sleep", "exit")  # YAML's true and false are no numbers here
        if not isinstance(value, _KINDS[key]) or (counted and isinstance(value, bool)):
            raise ScriptError(f"{where}.{key}: {value!r} is no {_KINDS[key][0].__name__}")
    written = given.get("write", {})
    for key, strings in (
        ("write", [*written, *written.values()]),
        ("delete", given.get("delete", [])),
    ):
        if not all(isinstance(string, str) for string in strings):
            raise ScriptError(f"{where}.{key}: paths and texts are strings")
    if given.get("revision") not in (None, *_REVISIONS):
        raise ScriptError(f"{where}.revision: one of {', '.join(_REVISIONS)}")
    reply = Reply(**cast(dict[str, Any], given))
    sources = [
        reply.text is not None,
        reply.file is not None,
        reply.template is not None,
        reply.echo,
        reply.echo_after is not None,
        reply.revision in ("sections", "section"),
    ]
    if sum(sources) > 1:
        raise ScriptError(
            f"{where}: give only one of text, file, template, echo, echo_after, revision"
        )
    return reply


def _mapping(raw: object, where: str, allowed: set[str] | None = None) -> dict[Any, Any]:
    if not isinstance(raw, dict):
        raise ScriptError(f"{where}: a mapping is expected, not {type(raw).__name__}")
    unknown = sorted(str(key) for key in raw if allowed is not None and key not in allowed)
    if unknown:
        raise ScriptError(f"{where}: unknown key {', '.join(unknown)}")
    return raw


def main(argv: list[str] | None = None) -> None:
    """Reply the prompt on stdin as the script says for `THOUGHTFORGE_STEP`."""
    args = _parser().parse_args(argv)
    script_path = Path(args.script or os.environ.get(SCRIPT_ENV_VAR) or DEMO_SCRIPT)
    prompt = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    step = os.environ.get("THOUGHTFORGE_STEP", "")
    try:
        script = _load(script_path)
        state_dir = _state_dir(script_path)
        call_number = _record_call(state_dir, step, prompt)
        reply = _choose(script, step, call_number)
    except ScriptError as exc:
        print(f"scripted agent: {exc}", file=sys.stderr)
        sys.exit(EXIT_NO_REPLY)
    try:
        _act(reply, Path(os.environ.get("THOUGHTFORGE_PROJECT_DIR") or Path.cwd()))
    except ScriptError as exc:
        print(f"scripted agent: {exc}", file=sys.stderr)
        sys.exit(EXIT_NO_REPLY)
    time.sleep(reply.sleep)
    try:
        text = _reply_text(reply, prompt, script_path.parent)
        if reply.evidence is not None:
            text = _with_evidence(text, prompt, reply.evidence)
        text += reply.append.replace("{iteration}", os.environ.get("THOUGHTFORGE_ITERATION", ""))
    except ScriptError as exc:
        print(f"scripted agent: {exc}", file=sys.stderr)
        sys.exit(EXIT_NO_REPLY)
    sys.stdout.write(text)
    sys.stdout.flush()
    if reply.stderr:
        print(reply.stderr, file=sys.stderr)
    sys.exit(reply.exit)


class ScriptError(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="thoughtforge-scripted-agent",
        description=(
            "DEMO/TEST AGENT - not an AI. Replies each ThoughtForge step (THOUGHTFORGE_STEP) "
            "from a script file, so the pipeline runs with no model and no account. Without "
            "--script it uses $THOUGHTFORGE_SCRIPT, then the built-in demo script."
        ),
    )
    parser.add_argument("--script", help="YAML script of replies per step")
    return parser


def _load(path: Path) -> Script:
    try:
        raw = load_yaml(read_capped_text(path, MAX_CONFIG_BYTES, "script"), str(path))
    except (InputRefused, yaml.YAMLError) as exc:
        raise ScriptError(f"cannot read script {path}: {exc}") from None
    try:
        return _script_of(raw)
    except ScriptError as exc:
        raise ScriptError(f"script {path} is invalid: {exc}") from None


def _state_dir(script_path: Path) -> Path:
    project_dir = os.environ.get("THOUGHTFORGE_PROJECT_DIR")
    base = Path(project_dir) if project_dir else script_path.parent
    return base / STATE_DIR_NAME


def _record_call(state_dir: Path, step: str, prompt: str) -> int:
    """Count calls per step and keep the prompt, so a list script knows which reply is next."""
    state_dir.mkdir(parents=True, exist_ok=True)
    counts_file = state_dir / "calls.json"
    counts: dict[str, int] = read_own_json(counts_file) if counts_file.exists() else {}
    counts[step] = counts.get(step, 0) + 1
    tmp = counts_file.with_suffix(".tmp")
    tmp.write_text(json.dumps(counts, indent=2))
    tmp.replace(counts_file)
    prompts = state_dir / "prompts"
    prompts.mkdir(exist_ok=True)
    seq = sum(counts.values())
    (prompts / f"{seq:04d}-{step or 'unknown'}.md").write_text(prompt, encoding="utf-8")
    return counts[step]


def _choose(script: Script, step: str, call_number: int) -> Reply:
    if step not in script.steps:
        known = ", ".join(sorted(script.steps))
        raise ScriptError(f"no reply for step '{step}' (the script replies: {known})")
    entry = script.steps[step]
    if isinstance(entry, Reply):
        return entry
    if isinstance(entry, list):
        if not entry:
            raise ScriptError(f"step '{step}' has an empty list of replies")
        return entry[min(call_number, len(entry)) - 1]
    iteration = os.environ.get("THOUGHTFORGE_ITERATION", "")
    by_iteration = {str(k): v for k, v in entry.by_iteration.items()}
    reply = by_iteration.get(iteration) or by_iteration.get("default")
    if reply is None:
        raise ScriptError(f"step '{step}' has no reply for iteration '{iteration}' and no default")
    return reply


def _act(reply: Reply, project_dir: Path) -> None:
    """Write and delete files as the reply says, inside the project only."""
    root = project_dir.resolve()
    for relpath in [*reply.write, *reply.delete]:
        if not (root / relpath).resolve().is_relative_to(root):
            raise ScriptError(f"refused '{relpath}': it leads outside the project")
    for relpath, text in reply.write.items():
        target = root / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    for relpath in reply.delete:
        (root / relpath).unlink(missing_ok=True)


def _reply_text(reply: Reply, prompt: str, script_dir: Path) -> str:
    if reply.revision is not None and (revised := _revised(reply.revision, prompt)) is not None:
        return revised
    if reply.file is not None:
        return (script_dir / reply.file).read_text(encoding="utf-8")
    if reply.template is not None:
        return _filled(script_dir / reply.template, prompt)
    if reply.echo:
        return prompt
    if reply.echo_after is not None:
        _, _, tail = prompt.rpartition(reply.echo_after)
        return tail
    return reply.text or ""


def _revised(revision: Revision, prompt: str) -> str | None:
    """The change request applied as the demo applies it (None: a proposal with nothing to
    revise, which the reply's other source answers). Its helpers load pydantic, so only the
    replies that need them import them."""
    from thoughtforge.adapters.agents.demo_revision import (
        chosen_sections,
        revised_proposal,
        revised_section,
    )

    project_dir = Path(os.environ.get("THOUGHTFORGE_PROJECT_DIR") or Path.cwd())
    if revision == "sections":
        return chosen_sections(prompt, project_dir)
    if revision == "section":
        return revised_section(prompt, project_dir)
    return revised_proposal(prompt, project_dir)


def _with_evidence(text: str, prompt: str, marker: str) -> str:
    try:
        return with_evidence(text, prompt, marker)
    except ValueError as exc:
        raise ScriptError(f"evidence is added to a JSON object reply only: {exc}") from None


def _filled(template: Path, prompt: str) -> str:
    from thoughtforge.adapters.agents.demo_words import words_for

    project_dir = Path(os.environ.get("THOUGHTFORGE_PROJECT_DIR") or Path.cwd())
    words = words_for(prompt, project_dir)
    try:
        text = template.read_text(encoding="utf-8")
        return Template(text).substitute(words.placeholders(for_json=template.suffix == ".json"))
    except OSError as exc:
        raise ScriptError(f"cannot read template {template}: {exc}") from None
    except (KeyError, ValueError) as exc:
        raise ScriptError(f"template {template} names no known value: {exc}") from None


if __name__ == "__main__":
    main()
