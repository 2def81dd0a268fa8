"""Phase 3 in code mode: gate the plan, build, then test and fix until the suite passes.

1. **Plan Completeness Gate**: a plan among the resources (`plan_gate.find_plan`) is judged by
   the agent; a failing one halts `plan_incomplete` until the human overrides (build from it as
   it is) or terminates. No plan, no gate.
2. **Build**: the coding agent (`coder`: called directly, or as a Vibe Kanban task attempt),
   working in the project directory, builds from `spec.md`,
   `constraints.md` and the plan (not `intent.md`: the spec supersedes it). In step mode
   (`code.step_mode`) it first lists ordered steps; each step is built, checked (the agent exited
   0 and the test suite still runs) and committed as `<project> step <n>: <title>`. A failed
   attempt is undone to the last commit (`git reset --hard` + `git clean -fd`, ThoughtForge's own
   files kept) and retried up to `code.max_step_attempts`, so earlier steps are never lost.
3. **Test-fix cycle**: run the suite, give the failures to the agent, repeat until green. The
   spec's stuck rules (`stuck.StuckTracker`) halt `stuck` until the human provides input, which
   resets the counters; a runner that crashes twice in a row halts `test_runner_failed`.
4. One commit when the build succeeds, then Phase 4.

Progress lives in `code_build.json` (`build_state`) and in git, so a kill at any point resumes
where the files say: the next uncommitted step, or the test-fix cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from thoughtforge.config import Config
from thoughtforge.core import (
    CODE_BUILD_FILE,
    CONSTRAINTS_FILE,
    SPEC_FILE,
    Project,
    TransitionHooks,
    discard_agent_changes,
    git_repo,
    log_event,
    read_state_file,
    write_state_file,
)
from thoughtforge.core.staging import SOURCE_SUFFIXES, is_own
from thoughtforge.errors import AgentFailure, PhaseHalt, StateFileError, UnusableAnswer
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases.engine import (
    HALTING_FAILURES,
    OUTPUT_INCOMPLETE,
    UNUSABLE_HELP,
    BuildOutcome,
    PhaseEngine,
    StepRunner,
    asking,
    reask,
    run_direct,
)
from thoughtforge.plugins.code.build_state import MAX_STEPS, BuildStep, CodeBuildState, StepList
from thoughtforge.plugins.code.coder import coder_for
from thoughtforge.plugins.code.plan_gate import (
    CompletenessVerdict,
    check_plan,
    find_plan,
    verdict_schema,
)
from thoughtforge.plugins.code.suite import Suite, describe, listing
from thoughtforge.plugins.code.test_runner import TestRun
from thoughtforge.prompting import json_objects

MILESTONE = "Phase 3 complete. Deliverable built. Polish loop starting."
ATTEMPTS = 2  # ask for a usable answer, then re-ask once
NO_PLAN = "None: build from the specification."


@dataclass(frozen=True)
class _Work:
    """What every coding prompt is built from, read once per run (the human may edit them)."""

    spec: str
    constraints: str
    plan: str
    guidance: str
    test_command: list[str]


class CodeBuilder:
    """One run of Phase 3 (code mode) over a project in `building`, from where its files stop."""

    def __init__(
        self,
        project: Project,
        config: Config,
        *,
        runner: StepRunner = run_direct,
        hooks: TransitionHooks | None = None,
    ) -> None:
        self.engine = PhaseEngine(project, config, Phase.BUILDING, hooks)
        self.runner = runner
        self.settings = config.code
        self.suite = Suite(self.engine, config.code)
        self.code = coder_for(config, self.engine.agent)
        self.dir = project.dir

    def run(self) -> BuildOutcome:
        try:
            self.engine.start(self.engine.agent)
            state = self._load()
            self._take_input(state)
            self._gate(state)
            work = self._work()
            if not state.built:
                self._build(state, work)
            self._test_until_green(state, work)
            return self._finish()
        except HALTING_FAILURES as failure:
            return self._halt(self.engine.as_halt(failure))

    # --- state -----------------------------------------------------------------------------

    def _load(self) -> CodeBuildState:
        if not (self.dir / CODE_BUILD_FILE).exists():
            return CodeBuildState()
        try:
            return read_state_file(self.dir, CODE_BUILD_FILE, CodeBuildState)
        except StateFileError as exc:
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, f"{exc}.") from None

    def _save(self, state: CodeBuildState) -> None:
        try:
            write_state_file(self.dir, CODE_BUILD_FILE, state)
        except OSError as exc:
            why = f"cannot write {CODE_BUILD_FILE}: {exc}"
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, why) from None

    def _take_input(self, state: CodeBuildState) -> None:
        """Back from a `stuck` halt: the human's input is a new attempt, so counts start again."""
        if state.awaiting_input:
            state.stuck.reset(state.stuck.last_task or "")
            state.cycles = 0
            state.awaiting_input = False
            self._save(state)

    # --- 1. the plan completeness gate -------------------------------------------------------

    def _gate(self, state: CodeBuildState) -> None:
        if state.gate == "failed":  # only an override leads from plan_incomplete to building
            state.gate = "overridden"
            self._save(state)
            self.engine.say(
                "The plan was accepted as it is: the build goes ahead without the gate."
            )
        if state.gate != "pending":
            return
        plan = find_plan(self.dir / "resources")
        if plan is None:
            state.gate = "skipped"
            self._save(state)
            return
        name = plan.relative_to(self.dir).as_posix()
        verdict = self.runner("plan completeness gate", lambda: self._judge(plan))
        log_event(self.dir, "plan_gate", plan=name, verdict=verdict.verdict)
        state.gate = "passed" if verdict.passed else "failed"
        self._save(state)
        if not verdict.passed:
            reasons = "; ".join(verdict.reasons)
            raise PhaseHalt(
                HaltReason.PLAN_INCOMPLETE,
                f"The plan {name} is not complete enough to build from: {reasons}. Complete it "
                "and start a new project from it, or override to build from it as it is.",
            )

    def _judge(self, plan: Path) -> CompletenessVerdict:
        text = self.engine.read(plan.relative_to(self.dir).as_posix())
        call = self.engine.call("plan-completeness", schema=verdict_schema())
        try:
            return check_plan(
                text,
                asking(
                    lambda prompt, numbered: self.engine.ask(self.engine.agent, prompt, numbered),
                    call,
                ),
                self.engine.prompts,
                attempts=ATTEMPTS,
                on_unusable=self.engine.keeper(call.step),
            )
        except UnusableAnswer as exc:
            raise PhaseHalt(
                HaltReason.ANSWER_UNUSABLE,
                f"The plan completeness verdict was unusable twice: {exc}. {UNUSABLE_HELP}",
            ) from None

    # --- 2. the build --------------------------------------------------------------------------

    def _work(self) -> _Work:
        plan = find_plan(self.dir / "resources")
        return _Work(
            spec=self.engine.read(SPEC_FILE),
            constraints=self.engine.read(CONSTRAINTS_FILE),
            plan=self.engine.read(plan.relative_to(self.dir).as_posix()) if plan else NO_PLAN,
            guidance=self.engine.human_guidance(),
            test_command=self.suite.command(),
        )

    def _build(self, state: CodeBuildState, work: _Work) -> None:
        if not self.settings.step_mode:
            prompt = self._build_prompt(work, "")
            self.runner("build", lambda: self._attempt(state, "build", prompt))
        else:
            if state.steps is None:
                state.steps = self.runner("plan the steps", lambda: self._plan_steps(work))
                self._save(state)
            while (next_step := state.next_step()) is not None:
                number, step = next_step
                label = f"step {number}/{len(state.steps)}: {step.title}"
                prompt = self._build_prompt(work, _step_text(state.steps, number))
                self.runner(label, lambda: self._attempt(state, label, prompt))  # noqa: B023
                self.engine.commit(f"{self.engine.project_name} {label}")
                step.done = True  # after the commit: a kill between the two redoes the step
                self._save(state)
        state.built = True
        self._save(state)

    def _plan_steps(self, work: _Work) -> list[BuildStep]:
        prompt = self.engine.prompts.render(
            "code-steps",
            max_steps=str(MAX_STEPS),
            spec=work.spec,
            constraints=work.constraints,
            plan=work.plan,
            guidance=work.guidance,
        )
        try:
            return self.engine.ask_until_usable(
                self.engine.agent,
                self.engine.call("code-steps", schema=StepList.model_json_schema()),
                lambda refusal: prompt if refusal is None else reask(prompt, refusal),
                _parse_steps,
                attempts=ATTEMPTS,
            )
        except UnusableAnswer as exc:
            raise PhaseHalt(
                HaltReason.ANSWER_UNUSABLE,
                f"The agent's build steps were unusable twice: {exc}. {UNUSABLE_HELP}",
            ) from None

    def _attempt(self, state: CodeBuildState, task: str, prompt: str) -> None:
        """Build `task` until an attempt passes its check. Every attempt starts from the last
        commit, so what a failed (or killed) attempt left is gone and earlier steps stay."""
        limit = self.settings.max_step_attempts
        for attempt in range(1, limit + 1):
            discard_agent_changes(self.dir)
            failure = self._try(state, task, prompt)
            if failure is None:
                return
            log_event(
                self.dir,
                "build_attempt_failed",
                level="warning",
                task=task,
                attempt=attempt,
                failure=failure,
            )
        discard_agent_changes(self.dir)
        raise PhaseHalt(
            HaltReason.STUCK,
            f"The build of {task} failed {limit} times; each attempt was undone. Last: {failure}",
        )

    def _try(self, state: CodeBuildState, task: str, prompt: str) -> str | None:
        """One attempt: why it failed, or None. Two non-zero exits in a row are `stuck`."""
        try:
            self.code(prompt, self.engine.call("code-build"))
        except AgentFailure as exc:
            stuck = state.stuck.agent_failed(task)
            self._save(state)
            if stuck is not None:
                discard_agent_changes(self.dir)
                raise PhaseHalt(HaltReason.STUCK, f"Stuck: {stuck.reason}. Last: {exc}") from None
            return str(exc)
        state.stuck.agent_succeeded(task)
        self._save(state)
        run = self.suite.run_once()
        if run.crashed:
            return f"the test suite no longer runs after it: {run.crash_reason}"
        return None

    def _build_prompt(self, work: _Work, step: str) -> str:
        return self.engine.prompts.render(
            "code-build",
            test_command=" ".join(work.test_command),
            step=step,
            spec=work.spec,
            constraints=work.constraints,
            plan=work.plan,
            guidance=work.guidance,
        )

    # --- 3. the test-fix cycle -----------------------------------------------------------------

    def _test_until_green(self, state: CodeBuildState, work: _Work) -> None:
        while True:
            run = self.runner(f"test run #{state.cycles + 1}", self.suite.run)
            if run.succeeded:
                state.stuck.tests_passed()
                self._save(state)
                return
            stuck = state.stuck.tests_failed(run.failing)
            self._save(state)
            if stuck is not None:
                raise PhaseHalt(HaltReason.STUCK, f"Stuck: {stuck.reason}.")
            if state.cycles >= self.settings.max_fix_cycles:
                raise PhaseHalt(
                    HaltReason.STUCK,
                    f"The tests still fail after {state.cycles} fix cycles "
                    f"(code.max_fix_cycles): {describe(run)}.",
                )
            state.cycles += 1
            self._save(state)
            self.runner(f"fix cycle #{state.cycles}", lambda: self._fix(state, work, run))  # noqa: B023

    def _fix(self, state: CodeBuildState, work: _Work, run: TestRun) -> None:
        """One fix; a failed one is counted (stuck rule) and the next test run judges the tree."""
        task = "fix the failing tests"
        prompt = self.engine.prompts.render(
            "code-test-fix",
            test_command=" ".join(work.test_command),
            result=describe(run),
            failing=listing(run.failing),
            output=run.output_tail,
            spec=work.spec,
            constraints=work.constraints,
            guidance=work.guidance,
        )
        try:
            self.code(prompt, self.engine.call("code-test-fix"))
        except AgentFailure as exc:
            stuck = state.stuck.agent_failed(task)
            self._save(state)
            log_event(self.dir, "fix_failed", level="warning", cycle=state.cycles, failure=str(exc))
            if stuck is not None:
                raise PhaseHalt(HaltReason.STUCK, f"Stuck: {stuck.reason}. Last: {exc}") from None
            return
        state.stuck.agent_succeeded(task)
        self._save(state)

    # --- 4. endings --------------------------------------------------------------------------

    def _finish(self) -> BuildOutcome:
        minimum = self.engine.config.phase3_completeness.code_min_source_files
        sources = source_files(self.dir)
        if len(sources) < minimum:
            raise PhaseHalt(
                HaltReason.PHASE3_OUTPUT_INCOMPLETE,
                f"{OUTPUT_INCOMPLETE} (the project has {len(sources)} source file(s) besides "
                f"its tests; phase3_completeness.code_min_source_files is {minimum})",
            )
        self.engine.commit("Phase 3 complete: code built, all tests pass")
        self.engine.advance(Phase.POLISHING)
        return BuildOutcome(
            verdict="built", halt_reason=None, reason=MILESTONE, deliverable=self.dir
        )

    def _halt(self, halt: PhaseHalt) -> BuildOutcome:
        if halt.halt_reason is HaltReason.STUCK:
            self._mark_awaiting_input()
        return self.engine.halt_build(halt, "code build", self.dir)

    def _mark_awaiting_input(self) -> None:
        try:
            state = self._load()
            state.awaiting_input = True
            self._save(state)
        except PhaseHalt as exc:
            log_event(self.dir, "code_build_state_unsaved", level="warning", error=str(exc))


def source_files(project_dir: Path) -> list[str]:
    """The code the build made: source files git keeps, but not tests and not ThoughtForge's."""
    return [
        relpath
        for relpath in git_repo.listed_files(project_dir)
        if PurePosixPath(relpath).suffix.lower() in SOURCE_SUFFIXES
        and not is_own(relpath)
        and not _is_test(PurePosixPath(relpath))
    ]


def _is_test(path: PurePosixPath) -> bool:
    name = path.name.lower()
    in_tests = any(part.lower() in _TEST_FOLDERS for part in path.parts[:-1])
    named = name.startswith("test_") or path.stem.lower().endswith(("_test", ".test", ".spec"))
    return in_tests or named


_TEST_FOLDERS = frozenset({"test", "tests", "__tests__", "spec", "specs"})


def _parse_steps(text: str) -> list[BuildStep]:
    for candidate in json_objects(text):
        if "steps" in candidate:
            try:
                return StepList.model_validate(candidate).steps
            except ValueError as exc:
                raise UnusableAnswer(f"its steps do not fit the schema: {exc}", text) from None
    raise UnusableAnswer("it held no JSON object with a 'steps' list", text)


def _step_text(steps: list[BuildStep], number: int) -> str:
    steps_list = "\n".join(
        f"{n}. {step.title}{' (done)' if step.done else ''}" for n, step in enumerate(steps, 1)
    )
    step = steps[number - 1]
    return (
        f"Build only step {number} of {len(steps)} now: **{step.title}**. {step.details}\n\n"
        f"Leave the test suite runnable when you finish. All the steps:\n\n{steps_list}"
    )


def build(
    project: Project, config: Config, *, runner: StepRunner, on_progress: Callable[[str], None]
) -> CodeBuilder:
    """The plugin contract's builder (`phases.plugin_contract`); progress: `code_build.json`."""
    return CodeBuilder(project, config, runner=runner)
