"""Phase 3's end writes `docs/traceability.md` for the plan it built, a first build's or a
revision's: the Phase 3 end commit is a restore point, and the page lists the criteria from it
until the polish loop's first iteration rewrites it."""

from __future__ import annotations

from thoughtforge.core.project import CONSTRAINTS_FILE, PLAN_FILE
from thoughtforge.errors import PhaseHalt
from thoughtforge.models import HaltReason
from thoughtforge.phases.engine import PhaseEngine
from thoughtforge.phases.traceability import TRACEABILITY_FILE, plan_traceability

CONSTRAINTS_UNREADABLE = (
    "constraints.md missing or unreadable. Cannot start polish loop. Review project `/docs/` "
    "directory."
)


def write_plan_traceability(engine: PhaseEngine) -> None:
    """Each acceptance criterion of `docs/constraints.md` with the plan's place that meets it;
    a halt when the constraints cannot be read."""
    try:
        constraints = engine.read(CONSTRAINTS_FILE)
    except PhaseHalt as exc:
        raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, f"{CONSTRAINTS_UNREADABLE} ({exc})") from None
    trace = plan_traceability(engine.project_name, constraints, engine.read(PLAN_FILE))
    engine.write(TRACEABILITY_FILE, trace)
