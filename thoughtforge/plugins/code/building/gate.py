"""Stage 1: a plan among the resources is judged complete enough to build from, or the build
halts `plan_incomplete` until the person overrides (build from it as it is) or terminates."""

from __future__ import annotations

from pathlib import Path

from thoughtforge.core.project_log import log_event
from thoughtforge.errors import PhaseHalt, UnusableReply
from thoughtforge.models import HaltReason
from thoughtforge.phases.failure_halts import unusable_twice
from thoughtforge.phases.reasking import asking
from thoughtforge.plugins.code.build_state import CodeBuildState
from thoughtforge.plugins.code.building.base import ATTEMPTS, BuilderBase
from thoughtforge.plugins.code.plan_gate import (
    CompletenessVerdict,
    check_plan,
    find_plan,
    verdict_schema,
)


class PlanGateStage(BuilderBase):
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
        except UnusableReply as exc:
            raise unusable_twice(exc, "The plan completeness verdict") from None
