"""What a deliverable-type plugin folder provides: new type = new folder, the phases unchanged.

A folder (`thoughtforge/plugins/<type>/`, or `<plugins.directory>/<type>/`) named after its type:

* `plugin.yaml` - `PluginManifest`: how Phase 1 recognises the type and where its deliverable is;
* `builder.py` - Phase 3: `build(project, config, *, runner, on_progress)` returns a `Builder`
  (each builds on the shared `phases.engine.PhaseEngine`), which tells `on_progress` (a
  `ProgressListener`) a `BuildProgress` after each step: the page shows it as reported;
* `reviewer.py` - Phase 4: `Review`, the review schema (a `phases.polish.review.Review`: issues of
  the shared severities, which the guards count), and optionally `PolishSteps` (the review and
  fix steps; without one, the shared document steps of `phases.polish.iteration`);
* `safety.py` - `validate(operation)`, which raises `SafetyViolation` to refuse (`SafetyRules`);
* `prompts/` - its prompts (`spec-building-<type>.md`, the per-type part of the spec prompt;
  `<type>-review.md` and `<type>-fix.md` for a document type; its builder's), found after the
  operator's and the built-in ones; the built-in types keep theirs with the built-in prompts;
* optionally `validation.py` (`DeliverableValidator`: `validate(project, candidate)` returns the
  `DeliverableVerdict` on a would-be deliverable; Phase 3, every Phase-4 fix and every revision
  ask it; without one, a document is checked by `phases.deliverable.document_check`);
* optionally `discovery.py` (a Phase 2 hook, `DiscoveryHook`) and `suite_run.py` (used by the
  plugin's own builder and reviewer; loaded here so a broken one is refused at start).

`plugin_loader` reads a folder into a `Plugin`, or refuses it with the folder and the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path, PurePosixPath
from types import ModuleType
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, field_validator

from thoughtforge.config import Config
from thoughtforge.core.build_progress import BuildProgress as BuildProgress  # for the plugins
from thoughtforge.core.build_progress import ProgressItem as ProgressItem  # for the plugins
from thoughtforge.core.project import Project
from thoughtforge.errors import UnusableReply
from thoughtforge.models import DeliverableType, HaltReason
from thoughtforge.phases.deliverable.document_check import check_document
from thoughtforge.phases.deliverable.verdict import (
    Candidate,
    DeliverableValidator,
    DeliverableVerdict,
)
from thoughtforge.phases.polish.review import Review
from thoughtforge.phases.safety import SafetyRules
from thoughtforge.prompting import PromptLibrary

WHOLE_PROJECT = "."
"""A manifest's `deliverable` when the deliverable is the project's files (code), not a document."""

ProgressListener = Callable[[BuildProgress], None]
"""Told the build's progress after each step; the phase records it for the page."""


class BuildOutcome(BaseModel):
    """How a Phase 3 run ended: built (now polishing) or halted."""

    verdict: Literal["built", "halt"]
    halt_reason: HaltReason | None
    reason: str
    deliverable: Path


class PluginManifest(BaseModel):
    """`plugin.yaml`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str = Field(min_length=1, max_length=40)
    """The type as people read it: `Plan`. Phase 1's distillation names the type by it."""
    detect: str = Field(min_length=1, max_length=400)
    """When Phase 1 chooses this type: one line of the intake prompt's list of types."""
    deliverable: str = ""
    """The deliverable, relative to the project: a document (by default `docs/<type>.md`), or
    `.` for the project's files, which the agents write and which are all committed."""

    @field_validator("deliverable")
    @classmethod
    def _inside_the_project(cls, value: str) -> str:
        path = PurePosixPath(value)
        if path.is_absolute() or ".." in path.parts:
            raise ValueError(f"{value!r} leads outside the project")
        return value


class Builder(Protocol):
    """What `build(project, config, *, runner, on_progress)` returns: one run of Phase 3."""

    def run(self) -> BuildOutcome: ...


@runtime_checkable
class DiscoveryHook(Protocol):
    """A plugin's `discovery` module: `PROMPT` names its prompt (and agent step), `SCHEMA` is the
    JSON schema of its answer, `enabled` says whether the config switches it on, `discover`
    returns the section body for a proposal or raises `AgentFailure` or `UnusableReply`."""

    PROMPT: str
    SCHEMA: dict[str, Any]

    def enabled(self, config: Config) -> bool: ...

    def discover(
        self,
        proposal: str,
        ask: Callable[[str], str],
        library: PromptLibrary,
        on_unusable: Callable[[int, UnusableReply], object],
    ) -> str: ...


class Plugin(BaseModel):
    """One deliverable type, as its folder provides it."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    name: DeliverableType
    folder: Path
    manifest: PluginManifest
    build: Callable[..., Builder]
    review: type[Review]
    polish_steps: type | None
    """The reviewer's `PolishSteps`; None for the shared document steps."""
    safety: SafetyRules
    discovery: DiscoveryHook | None = None
    validation: DeliverableValidator | None = None
    suite_run: ModuleType | None = None
    prompts: Path | None = None

    @property
    def label(self) -> str:
        return self.manifest.label

    @property
    def deliverable(self) -> str:
        """The deliverable relative to the project (`.` for its files)."""
        return self.manifest.deliverable or f"docs/{self.name}.md"

    @property
    def builds_files(self) -> bool:
        """The agents' own files are the deliverable (code): they are committed, not refused."""
        return self.deliverable == WHOLE_PROJECT

    def check_deliverable(self, project: Project, candidate: Candidate) -> DeliverableVerdict:
        """Whether `candidate` may become the deliverable: the plugin's validator, or the shared
        document check."""
        if self.validation is None:
            return check_document(candidate)
        return self.validation.validate(project, candidate)

    def deliverable_path(self, project_dir: Path) -> Path:
        return project_dir if self.builds_files else project_dir / self.deliverable

    def prompt_library(self, config: Config) -> PromptLibrary:
        """The operator's prompts, the built-in ones, then this plugin's."""
        return PromptLibrary(config.prompts.directory, self.prompts)
