"""Change requests: a `done` (or halted) project goes back to Phase 2 with its current spec as the
starting point and the change as the person's first message, then Phase 3 rebuilds only what the
change touches and Phase 4 polishes again. The CLI, the page and MCP start one through `revise`,
from the project's view read under the revision's claim; the pipeline's deployment parameter
through `start_revision`.

Order matters for "nothing typed is lost": the change is written to `revisions.json` and committed
before anything else moves; the revision's start is tagged `thoughtforge-revision-N`.
"""

from __future__ import annotations

from thoughtforge.config import Config
from thoughtforge.core import git_repo
from thoughtforge.core.own_files import read_own_text
from thoughtforge.core.project import CONSTRAINTS_FILE, SPEC_FILE, Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.project_view import ProjectView, read_view, view_after
from thoughtforge.core.revisions import (
    REVISION_TAG_PREFIX,
    Revision,
    Revisions,
    open_revision,
    read_revisions,
    run_label,
    update_revision,
    write_revisions,
)
from thoughtforge.core.staging import commit_own, secure_edits
from thoughtforge.core.state import (
    ChatMessage,
    PolishState,
    Status,
    append_chat,
    clear_chat,
    read_chat,
    write_polish_state,
)
from thoughtforge.core.transition import transition
from thoughtforge.errors import ProjectError
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases.revision_text import (
    SUPERSEDED,
    changes_for_the_chat,
    split_sections,
    with_superseded,
)

STARTING_POINT = "Current spec (revision {before}), the starting point for revision {number}:"
_REVISABLE = frozenset({Phase.DONE, Phase.HALTED})


class RevisionRefused(ProjectError):
    """A change request (or a rollback) the project cannot take now; the words say why and what
    to do instead."""


def refuse_while_a_run_works(project: Project, what: str, view: ProjectView | None = None) -> None:
    """Refused, naming the run, while a run holds the project, is on its way, or waits for an
    answer (a suspended run would wake up to a project that moved under it). `view`: the
    project's view the caller read under its claim."""
    view = view or read_view(project)
    status = view.status
    name = run_label(project.id, status.project_name, status.phase.value, view.revision)
    claim = view.claim
    if view.works:
        run = claim.run_name if claim is not None and claim.run_name else name
        raise RevisionRefused(
            f"cannot {what} {project.id}: flow run '{run}' is working on it. Wait for it to "
            f"finish or halt (`thoughtforge status {project.id}`), then try again."
        )
    wait = view.waiting
    if wait is not None:
        where = wait.page or f"flow run '{name}'"
        raise RevisionRefused(
            f"cannot {what} {project.id}: a run waits for your answer at {where}. Answer or "
            f"terminate it first (`thoughtforge {wait.verbs} {project.id}`)."
        )


def start_revision(
    project: Project,
    config: Config,
    change: str,
    *,
    run_id: str | None = None,
    keep_edits: bool = False,
) -> Revision:
    """Record `change` as revision N+1 and take the project back to Phase 2. Refused for a
    terminated project, one not done or halted, one without a spec yet, and over uncommitted
    edits (the rebuild would overwrite them) unless `keep_edits` commits them first. A run
    passing its own `run_id` gets the revision it already started back (a re-entered
    deployment run)."""
    revisions = read_revisions(project.dir)
    latest = revisions.latest
    if run_id and latest is not None and latest.run_id == run_id:
        return latest
    _, after, _ = _begin(project, config, change, project.status(), revisions, run_id, keep_edits)
    return after.revisions[-1]


def revise(
    project: Project, config: Config, change: str, view: ProjectView, *, keep_edits: bool = False
) -> ProjectView:
    """`start_revision` from the project's view a door read under the revision's claim (its
    status and revisions not read again), and the view as the revision left it."""
    written = _begin(project, config, change, view.status, view.revisions, None, keep_edits)
    return view_after(view, *written)


def _begin(
    project: Project,
    config: Config,
    change: str,
    status: Status,
    revisions: Revisions,
    run_id: str | None,
    keep_edits: bool,
) -> tuple[Status, Revisions, PolishState]:
    """The revision started from the project's `status` and `revisions` as read: the status,
    the revisions and the polish record (begun afresh) it wrote."""
    text = change.strip()
    if not text:
        raise RevisionRefused("a change request needs words: say what should change")
    if status.halt_reason is HaltReason.HUMAN_TERMINATED:
        raise RevisionRefused(
            f"{project.id} was terminated, which is final. Start a new project from its spec: "
            f"`thoughtforge run {project.dir / SPEC_FILE}`."
        )
    if status.phase not in _REVISABLE:
        raise RevisionRefused(
            f"{project.id} is in {status.phase}: a change request is for a done or halted "
            "project. Say it in the chat instead (`thoughtforge say`)."
        )
    spec = _text(project, SPEC_FILE)
    if not spec:
        raise RevisionRefused(
            f"{project.id} has no spec yet: nothing was built to revise. Resume it instead."
        )
    number = revisions.current + 1
    secure_edits(project.dir, f"start revision {number}", keep=keep_edits)
    revision = Revision(
        number=number,
        change=text,
        run_id=run_id,
        spec_before=spec,
        constraints_before=_text(project, CONSTRAINTS_FILE),
    )
    after = Revisions(revisions=[*revisions.revisions, revision])  # a restore's mark goes
    write_revisions(project.dir, after)
    commit_own(project.dir, f"Revision {number} begins: {_first_line(text)}")
    git_repo.tag(project.dir, f"{REVISION_TAG_PREFIX}{number}")
    polish = PolishState()
    write_polish_state(project.dir, polish)
    name = status.project_name or project.id
    moved = transition(
        project,
        Phase.SPEC_BUILDING,
        summary=f"Project '{name}' — revision {number}: change request received, back to "
        "Phase 2 to revise the spec.",
    )
    clear_chat(project.dir)
    _say(project, "system", f"— Revision {number} begins — change request: {_first_line(text)}")
    starting_point = STARTING_POINT.format(before=number - 1, number=number)
    _say(project, "ai", f"{starting_point}\n\n{_proposal_of(spec)}")
    _say(project, "human", text)
    log_event(project.dir, "revision_started", revision=number, change=text)
    return moved, after, polish


def awaits_revised_proposal(project: Project) -> bool:
    """Phase 2 of a revision before the agent proposed: the latest spec message in the chat is
    still the starting point."""
    for message in reversed(read_chat(project.dir)):
        if message.role == "ai" and message.phase is Phase.SPEC_BUILDING:
            return message.content.startswith(STARTING_POINT.split("{", 1)[0])
    return False


def show_changes(project: Project, spec: str, constraints: str) -> None:
    """In a revision, tell the chat what the proposal changes in `spec.md` and `constraints.md`
    (in words)."""
    revision = open_revision(project.dir)
    if revision is None:
        return
    shown = changes_for_the_chat(
        [
            (SPEC_FILE, _without_superseded(revision.spec_before), spec),
            (CONSTRAINTS_FILE, _without_superseded(revision.constraints_before), constraints),
        ]
    )
    _say(
        project,
        "system",
        "What this proposal changes (removed words struck through, added ones underlined):"
        f"\n\n{shown}"
        if shown
        else "This proposal changes nothing in the spec or the constraints yet.",
    )


def keep_superseded(project: Project, name: str, document: str) -> str:
    """In a revision, `document` (the new spec or constraints) with what it replaced kept in a
    Superseded section; otherwise `document` as it is."""
    revision = open_revision(project.dir)
    if revision is None:
        return document
    before = revision.spec_before if name == SPEC_FILE else revision.constraints_before
    return with_superseded(before, document, revision.number)


def finish_build(project: Project) -> None:
    """The revision's Phase 3 is done (called before the build's last commit)."""
    revision = open_revision(project.dir)
    if revision is not None:
        update_revision(project.dir, revision.model_copy(update={"built": True}))


def _proposal_of(spec: str) -> str:
    """The spec's sections as a proposal: without its title and its Superseded section."""
    return "".join(
        part.text for part in split_sections(spec) if part.heading and part.heading != SUPERSEDED
    ).strip()


def _without_superseded(spec: str) -> str:
    return "".join(p.text for p in split_sections(spec) if p.heading != SUPERSEDED).rstrip() + "\n"


def _say(project: Project, role: str, text: str) -> None:
    append_chat(
        project.dir,
        ChatMessage(role=role, content=text, phase=Phase.SPEC_BUILDING),
    )


def _text(project: Project, name: str) -> str:
    try:
        return read_own_text(project.dir / name)
    except (OSError, UnicodeDecodeError):
        return ""


def _first_line(text: str, limit: int = 72) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"
