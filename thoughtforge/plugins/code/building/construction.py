"""Stage 2: the coding agent builds from the spec, constraints and plan, in one go or in ordered
steps, each checked and committed; a failed attempt is undone to the last commit and retried."""

from __future__ import annotations

from thoughtforge.core.project import CONSTRAINTS_FILE, SPEC_FILE
from thoughtforge.core.project_log import log_event
from thoughtforge.core.staging import discard_agent_changes
from thoughtforge.errors import AgentFailure, PhaseHalt, UnusableReply
from thoughtforge.models import HaltReason
from thoughtforge.phases.failure_halts import unusable_twice
from thoughtforge.phases.reasking import reask
from thoughtforge.plugins.code.acceptance.lock import LOCK_FILE
from thoughtforge.plugins.code.build_state import MAX_STEPS, BuildStep, CodeBuildState, StepList
from thoughtforge.plugins.code.building.base import ATTEMPTS, BuilderBase, Work
from thoughtforge.plugins.code.plan_gate import find_plan
from thoughtforge.prompting import json_objects

NO_PLAN = "None: build from the specification."


class ConstructionStage(BuilderBase):
    def _work(self) -> Work:
        plan = find_plan(self.dir / "resources")
        return Work(
            spec=self.engine.read(SPEC_FILE),
            constraints=self.engine.read(CONSTRAINTS_FILE),
            plan=self.engine.read(plan.relative_to(self.dir).as_posix()) if plan else NO_PLAN,
            test_command=self.suite.command(),
        )

    def _build(self, state: CodeBuildState, work: Work) -> None:
        if not self.settings.step_mode:
            prompt = self._build_prompt(work, "", "build")
            self.runner("build", lambda: self._attempt(state, "build", prompt))
        else:
            if state.steps is None:
                state.steps = self.runner("plan the steps", lambda: self._plan_steps(work))
                self._save(state)
            while (next_step := state.next_step()) is not None:
                number, step = next_step
                label = f"step {number}/{len(state.steps)}: {step.title}"
                prompt = self._build_prompt(work, _step_text(state.steps, number), label)
                self.runner(label, lambda: self._attempt(state, label, prompt))  # noqa: B023
                self.engine.commit(f"{self.engine.project_name} {label}")
                step.done = True  # after the commit: a kill between the two redoes the step
                self._save(state)
        state.built = True
        self._save(state)

    def _plan_steps(self, work: Work) -> list[BuildStep]:
        prompt = self.engine.prompts.render(
            "code-steps",
            max_steps=str(MAX_STEPS),
            spec=work.spec,
            constraints=work.constraints,
            plan=work.plan,
            guidance=self.engine.human_guidance("plan the steps"),
        )
        try:
            return self.engine.ask_until_usable(
                self.engine.agent,
                self.engine.call("code-steps", schema=StepList.model_json_schema()),
                lambda refusal: prompt if refusal is None else reask(prompt, refusal),
                _parse_steps,
                attempts=ATTEMPTS,
            )
        except UnusableReply as exc:
            raise unusable_twice(exc, "The agent's build steps") from None

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
            with self.engine.agent_at_work(task, also=(LOCK_FILE,)):
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
        refusal = self._lock_refusal(task)
        if refusal is not None:
            return f"the step was refused: {refusal}"
        run = self.suite.run_once()
        if run.crashed:
            return f"the test suite no longer runs after it: {run.crash_reason}"
        return None

    def _build_prompt(self, work: Work, step: str, label: str) -> str:
        return self.engine.prompts.render(
            "code-build",
            test_command=" ".join(work.test_command),
            step=step,
            spec=work.spec,
            constraints=work.constraints,
            plan=work.plan,
            guidance=self.engine.human_guidance(label),
        )


def _parse_steps(text: str) -> list[BuildStep]:
    for candidate in json_objects(text):
        if "steps" in candidate:
            try:
                return StepList.model_validate(candidate).steps
            except ValueError as exc:
                raise UnusableReply(f"its steps do not fit the schema: {exc}", text) from None
    raise UnusableReply("it held no JSON object with a 'steps' list", text)


def _step_text(steps: list[BuildStep], number: int) -> str:
    steps_list = "\n".join(
        f"{n}. {step.title}{' (done)' if step.done else ''}" for n, step in enumerate(steps, 1)
    )
    step = steps[number - 1]
    return (
        f"Build only step {number} of {len(steps)} now: **{step.title}**. {step.details}\n\n"
        f"Leave the test suite runnable when you finish. All the steps:\n\n{steps_list}"
    )
