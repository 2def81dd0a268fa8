"""Errors a user (not a programmer) can cause, and that the CLI reports without a traceback.

Exception hierarchy:

* ThoughtForgeError
  + ConfigError           - config.yaml missing, not YAML, or a key with a bad value
    - PluginError         - a deliverable-type plugin folder that cannot be used, or none by
                            the name a project asks for
  + StateFileError        - status / polish_state / chat_history JSON unreadable or invalid
  + ProjectError          - a project that does not exist or cannot be created
    - ProjectLimitError   - concurrency.max_parallel_runs reached
    - core.course_claim.ProjectClaimed - a revise, rollback, archive or start while another
                                         change of the project's course holds its claim
      - core.course_claim.RunAlreadyStarting - a run asked for while one is on its way or
                                               working
    - core.archive.ArchiveRefused - archiving a project in progress or one a run works on
    - phases.revision.RevisionRefused - a revise or rollback while a run works on the project,
                                        or a revise of a terminated project
    - core.staging.UncommittedEdits - a rollback or revise that would overwrite uncommitted
                                      edits of tracked files (none is put back)
  + TransitionError       - a phase change the pipeline does not allow
  + PromptError           - a prompt file missing or a placeholder without a value
  + RepositoryTampered    - a project's `.git/` holds hooks or config an agent wrote
  + ProjectFileError      - a project file that cannot be used: a link, a full disk, read-only
  + PhaseHalt             - a phase engine stops the project with a `halt_reason`
    - BudgetExhausted     - the next agent call could take the project past its budget
                            (halts `budget_exhausted`, before the call)
    - AgentRefused        - an agent CLI was refused the tools its step needs, or a text step's
                            agent has flags that grant tools (halts `agent_failure`, no retry)
    - phases.spec.SpecIncomplete - a spec proposal without acceptance criteria (or glued or
                                   cut), twice (halts `spec_incomplete`)
  + AgentFailure          - an agent failed twice (halts `agent_failure`: `phases.failure_halts`)
    - PromptTooLarge      - a prompt that does not fit the agent's window, refused before any call
    - ReplyCutOff        - every attempt's reply was cut off at max_tokens (halts
                            `answer_unusable`: the model, not the call, is the problem)
  + UnusableReply        - one agent reply a step cannot use; the engine asks again (twice
                            unusable halts `answer_unusable`)
    - CutOffReply        - a reply whose JSON never closes: it was cut off
    - phases.intake.DistillationMalformed - two distillations without the six sections, or
                                           glued or cut (`read_document`)
    - phases.polish.review.MalformedReview - no review JSON that fits the schema
    - plugins.plan.builder_response.BuilderResponseError - no builder answer that fits its schema
    - plugins.plan.builder._SlotsRejected - a plan section's answer that left slots unusable
  + stack.api.AnsweredMeanwhile       - another answer reached the waiting run first (the
                                         sender is told its words were kept)
  + actions.uploading.UploadRefused - a dropped file not saved: too large, no plain folder
  + actions.prompt_editing.PromptEditError - a prompt save or reset that changed nothing
  + ActionRefused         - an action the project does not take now (not one its state
                            offers, or one that needs words sent without them): the same
                            words at every door (`actions`)
  + bounded_input.InputRefused - a file that is no regular file or over its cap, YAML whose
                                aliases expand too far
    - bounded_input.JsonTooDeep - JSON nested past MAX_JSON_DEPTH (a ValueError too)
  + ServiceError          - a board, channel or connector call that failed (never halts a phase)
    - stack.api.PrefectApiError       - a Prefect REST call that failed
    - ConnectorError                   - a Notion or Google Drive pull that failed, by `kind`
  + UnknownHistoryItem    - a rollback or diff to an item the history does not hold (the
                            valid ones are listed)
  + DraftRefused          - the person's edit of a draft that fails its checks (kept in
                            the page's box, or in rejected/ by the CLI)
  + phases.safety.SafetyViolation      - an operation the deliverable type forbids
  + plugins.plan.template.PlanTemplateError, template_selection.NoPlanTemplatesError
                                        - a plan template that cannot be used

The ones defined next to the code that raises them are listed here so the tree reads in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # no pydantic at run time: processes started per call import this module
    from pydantic import ValidationError

    from thoughtforge.models import HaltReason


class ThoughtForgeError(Exception):
    """Base class: the message is written for the operator."""


class ConfigError(ThoughtForgeError):
    pass


class ActionRefused(ThoughtForgeError):
    """What a person asked of a project that it does not take now; raised by `actions`, so the
    page, the CLI and the MCP server refuse it in the same words."""


class PluginError(ConfigError):
    """A plugin folder refused at start, or a deliverable type no plugin folder provides."""

    def __init__(self, folder: Path | None, reason: str) -> None:
        self.folder = folder
        self.reason = reason
        where = f"plugin folder {folder} is refused: " if folder is not None else ""
        super().__init__(f"{where}{reason}")


class StateFileError(ThoughtForgeError):
    """A state file that cannot be trusted. It is never overwritten or guessed."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class ProjectError(ThoughtForgeError):
    pass


class DraftRefused(ThoughtForgeError):
    """An edited draft not saved: empty, a section lost or missing, an open item left at a
    Confirm, or made from a draft the AI has replaced since. The text is kept by the caller."""


class UnknownHistoryItem(ThoughtForgeError):
    """A rollback target that names no point of the project's history."""


class ProjectLimitError(ProjectError):
    pass


class TransitionError(ThoughtForgeError):
    pass


class PromptError(ThoughtForgeError):
    pass


class RepositoryTampered(ThoughtForgeError):
    """`.git/` names something git would run that ThoughtForge did not put there: no git command
    runs in that repository until it is undone."""

    def __init__(self, repo: Path, found: list[str]) -> None:
        self.repo = repo
        self.found = found
        super().__init__(
            f"the git repository in {repo} was changed by something other than ThoughtForge "
            f"({', '.join(found)}); no git command runs there until that is removed"
        )


class ProjectFileError(ThoughtForgeError, OSError):
    """A file or folder of a project that cannot be used as it is: a symbolic link where
    ThoughtForge's own file belongs, a full disk, a read-only folder. The message is one line
    naming the path; a run halts with `file_system_error`. An `OSError` too, so code that handles
    a failed file operation handles this one."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class PhaseHalt(ThoughtForgeError):
    """Raised inside a phase engine; the engine turns it into `transition(..., HALTED)`."""

    def __init__(self, reason: HaltReason, message: str) -> None:
        from thoughtforge.terminal_text import without_escapes  # rich: not for every importer

        self.halt_reason = reason
        super().__init__(without_escapes(message))  # a program's colours never reach a halt


class AgentRefused(PhaseHalt):
    """An agent CLI could not do its step's work with what it was granted (a permission, sandbox
    or policy denial), or its own flags would grant a text step tools. Retrying changes nothing,
    so every phase halts with `agent_failure` at once, naming the cause and the fix."""

    def __init__(self, message: str) -> None:
        from thoughtforge.models import HaltReason

        super().__init__(HaltReason.AGENT_FAILURE, message)


class BudgetExhausted(PhaseHalt):
    """Raised before an agent call that could take the project past its budget: the call is not
    made. Every phase halts with `budget_exhausted`; the message says spent / budget and how to
    raise it."""

    def __init__(self, message: str) -> None:
        from thoughtforge.models import HaltReason

        super().__init__(HaltReason.BUDGET_EXHAUSTED, message)


class UnusableReply(ThoughtForgeError):
    """An agent's reply that a step cannot use; the message says why, for the re-ask."""

    def __init__(self, reason: str, reply: str = "") -> None:
        self.reply = reply
        super().__init__(reason)


class FailureKind(StrEnum):
    """How one attempt of an agent call failed: what code decides on (the words are for people)."""

    UNAVAILABLE = "unavailable"
    """The agent could not be asked: no such command, it could not start, its key is not set."""
    UNREACHABLE = "unreachable"
    """An HTTP agent's server could not be reached, through every retry."""
    TIMED_OUT = "timed_out"
    TOO_LARGE = "too_large"
    """The reply went past `agents.max_reply_bytes`; the agent was stopped."""
    EXITED = "exited"
    """A command that ended with a non-zero exit code."""
    EMPTY = "empty"
    UNREADABLE = "unreadable"
    """Output not in the form the agent's entry declares (not a chat completion, say)."""
    INTERRUPTED = "interrupted"
    """A reply the server broke off: an error mid-stream, a stream closed mid-reply."""
    REFUSED = "refused"
    """The server refused the request (an HTTP error, a redirect, images or structured output)."""
    CUT_OFF = "cut_off"
    """The reply ended at the reply's token limit."""
    PROMPT_TOO_LARGE = "prompt_too_large"
    """Refused before any call: the prompt does not fit the agent's window."""


@dataclass(frozen=True)
class AttemptFailure:
    """One failed attempt: its kind, and the words a person reads (the halt message quotes them)."""

    kind: FailureKind
    reason: str

    def __post_init__(self) -> None:
        """A CLI's colours and cursor moves never reach a halt message."""
        from thoughtforge.terminal_text import without_escapes  # rich: not for every importer

        object.__setattr__(self, "kind", FailureKind(self.kind))
        object.__setattr__(self, "reason", without_escapes(self.reason))

    def __str__(self) -> str:
        return self.reason


class AgentFailure(ThoughtForgeError):
    """Both attempts of one agent call failed; `attempts` says how each one failed."""

    def __init__(self, agent: str, step: str, attempts: list[AttemptFailure]) -> None:
        self.agent = agent
        self.step = step
        self.attempts = attempts
        detail = "; ".join(f"attempt {n}: {why}" for n, why in enumerate(attempts, start=1))
        super().__init__(f"agent '{agent}' failed at step '{step}' ({detail})")


class PromptTooLarge(AgentFailure):
    """The prompt's fixed part alone does not fit the agent's window with the reply's room."""

    def __init__(
        self, agent: str, step: str, tokens: int, window: int, reply_room: int | None
    ) -> None:
        room = f", {reply_room} of them kept for the reply" if reply_room else ""
        super().__init__(
            agent,
            step,
            [
                AttemptFailure(
                    kind=FailureKind.PROMPT_TOO_LARGE,
                    reason=f"the prompt (about {tokens} tokens) does not fit its context window "
                    f"({window} tokens{room}); use an agent with a larger window "
                    f"(agents.available.{agent}.context_window_tokens) or shorten the material",
                )
            ],
        )


class ReplyCutOff(AgentFailure):
    """Each attempt ended at the reply's token limit: a model that rambles or a limit too low."""


class CutOffReply(UnusableReply):
    """The reply stops inside its JSON: it was cut off, which no field-by-field reading fixes."""


class ServiceError(ThoughtForgeError):
    """An outside service did not answer as expected; `status` is its HTTP status, if any."""

    def __init__(self, message: str, status: int | None = None) -> None:
        self.status = status
        super().__init__(message)


class ConnectorError(ServiceError):
    """A resource a connector could not pull; the message names the connector and the resource,
    never a token. `transient` kinds (timeout, rate limit, a 5xx) are worth retrying."""

    TRANSIENT = frozenset({"timeout", "rate_limited", "server"})

    def __init__(
        self, connector: str, resource: str, kind: str, detail: str, status: int | None = None
    ) -> None:
        self.connector = connector
        self.resource = resource
        self.kind = kind
        self.detail = detail
        super().__init__(f"{connector}: {resource}: {detail}", status)

    @property
    def transient(self) -> bool:
        return self.kind in self.TRANSIENT


def schema_problems(exc: ValidationError, limit: int = 3) -> str:
    """A pydantic refusal as a person reads it: `where: what` for the first few problems."""
    problems = [
        f"{'.'.join(str(part) for part in error['loc']) or '(top level)'}: {error['msg']}"
        for error in exc.errors()[:limit]
    ]
    more = exc.error_count() - limit
    return "; ".join(problems) + (f"; and {more} more" if more > 0 else "")
