"""The convergence trajectory as a Markdown chart: one bar per iteration, with what it cost, so
the Prefect UI shows at a glance whether the loop is getting anywhere, and at what price."""

from __future__ import annotations

from thoughtforge.core.spend.budget import usd
from thoughtforge.core.state import TrajectoryEntry

BAR_WIDTH = 40


def trajectory_chart(trajectory: list[TrajectoryEntry]) -> str:
    """Bars scaled to the largest total; critical, medium and minor are drawn apart."""
    if not trajectory:
        return "No iteration has been recorded yet."
    scale = max(max(e.total for e in trajectory), 1)
    rows = [_row(entry, scale) for entry in trajectory]
    return (
        "| # | critical | medium | minor | total | fix | cost | chart |\n"
        "| ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |\n" + "\n".join(rows) + "\n\n"
        "`█` critical · `▓` medium · `░` minor\n"
    )


def _row(entry: TrajectoryEntry, scale: int) -> str:
    def bar(count: int, mark: str) -> str:
        return mark * round(count * BAR_WIDTH / scale)

    chart = bar(entry.critical, "█") + bar(entry.medium, "▓") + bar(entry.minor, "░")
    fix = "yes" if entry.fix_applied else "no"
    cost = "—" if entry.usd is None else usd(entry.usd)
    return (
        f"| {entry.iteration} | {entry.critical} | {entry.medium} | {entry.minor} | "
        f"{entry.total} | {fix} | {cost} | `{chart or '·'}` |"
    )
