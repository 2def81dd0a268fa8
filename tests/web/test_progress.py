"""Phases 3–4 on the page: build progress, the polish chart, the last guard verdicts."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from starlette.templating import Jinja2Templates

from tests.conftest import REPO_ROOT
from tests.polish_setup import polishing_project
from thoughtforge.actions.progress import deliverable_pane
from thoughtforge.config import Config, load_config
from thoughtforge.core.build_progress import BuildProgress, ProgressItem, recorded
from thoughtforge.core.project import Project
from thoughtforge.core.state import (
    PolishState,
    TrajectoryEntry,
    read_status,
    write_polish_state,
    write_status,
)
from thoughtforge.models import Counts, DeliverableType, Issue
from thoughtforge.phases.polish import polish_log
from thoughtforge.phases.polish.finding_tracker import FindingTracker, after_review, write_tracker
from thoughtforge.phases.polish.guards import GuardReport, GuardResult
from thoughtforge.phases.polish.review import Dismissal
from thoughtforge.phases.traceability import Criterion, Evidence, Trace, render
from thoughtforge.web.progress import CHART_HEIGHT, Panel, chart_of, panel_for

AT = datetime(2026, 11, 23, tzinfo=UTC)
EXAMPLE_PLUGINS = REPO_ROOT / "examples" / "plugins"


def _panel(config: Config, project: Project) -> Panel:
    return panel_for(deliverable_pane(config, project))


def _row(iteration: int, critical: int, medium: int, minor: int) -> dict[str, int]:
    return {"iteration": iteration, "critical": critical, "medium": medium, "minor": minor}


def test_the_chart_has_a_point_per_iteration_and_severity_scaled_to_the_highest() -> None:
    chart = chart_of([_row(1, 4, 2, 8), _row(2, 1, 2, 3), _row(3, 0, 1, 2)])
    assert chart is not None and chart.top == 8 and chart.last_iteration == 3
    assert [s.severity for s in chart.series] == ["critical", "medium", "minor"]
    minor = chart.series[2]
    assert [(it, count) for _, _, it, count in minor.points] == [(1, 8), (2, 3), (3, 2)]
    xs = [x for x, _, _, _ in minor.points]
    assert xs == sorted(xs) and minor.points[0][1] < minor.points[1][1]  # 8 is drawn highest
    assert all(0 <= y <= CHART_HEIGHT for s in chart.series for _, y, _, _ in s.points)
    assert chart_of([]) is None


def test_the_panel_shows_sections_chart_guards_and_the_deliverable(config: Config) -> None:
    project = polishing_project(config)
    told: list[BuildProgress] = []
    recorded(project.dir, told.append)(
        BuildProgress(
            items=[
                ProgressItem(label="Budget", done=True, detail="3/3 slots"),
                ProgressItem(label="Risks", done=False, detail="1/2 slots"),
            ]
        )
    )
    assert len(told) == 1
    write_polish_state(
        project.dir,
        PolishState(
            iteration=1,
            counts=Counts(medium=1),
            trajectory=[
                TrajectoryEntry(
                    iteration=1,
                    critical=0,
                    medium=1,
                    minor=0,
                    total=1,
                    fix_applied=True,
                    timestamp=AT,
                )
            ],
        ),
    )
    report = GuardReport(
        verdict="done",
        guard="termination",
        reason="under every threshold",
        results=[GuardResult(name="termination", triggered=True, detail="0/1/0 within 0/3/5")],
        warnings=[],
    )
    issue = Issue(severity="medium", description="Budget <b>lacks</b> a buffer")
    polish_log.append(project.dir, polish_log.iteration_entry(1, AT, [issue], "fixed", report))

    panel = _panel(config, project)

    assert [(i.label, i.done, i.detail) for i in panel.build] == [
        ("Budget", True, "3/3 slots"),
        ("Risks", False, "1/2 slots"),
    ]
    assert panel.chart is not None and panel.chart.last_iteration == 1
    assert panel.trend == "starting: one review so far"
    templates = Jinja2Templates(directory=REPO_ROOT / "thoughtforge" / "web" / "templates")
    html = templates.get_template("panel.html").render(panel=panel)
    assert '<p class="trend">Heading: starting: one review so far</p>' in html
    assert panel.guards == ["termination: TRIGGERED — 0/1/0 within 0/3/5"]
    assert panel.verdict == "done (termination) — under every threshold"
    assert "<h2>Section 1</h2>" in panel.deliverable_html
    assert "<b>lacks" not in panel.polish_log_html


def test_an_unreadable_build_progress_is_a_problem_on_the_panel(config: Config) -> None:
    project = polishing_project(config)
    (project.dir / "build_progress.json").write_text("{not json")
    panel = _panel(config, project)
    assert panel.build == [] and "build_progress.json" in panel.problems[0]


def test_an_unreadable_polish_state_is_a_problem_on_the_panel(config: Config) -> None:
    project = polishing_project(config)
    (project.dir / "polish_state.json").write_text("{not json")
    panel = _panel(config, project)
    assert panel.chart is None and "polish_state.json" in panel.problems[0]


def test_a_deliverable_an_agent_replaced_by_a_link_is_never_shown(
    config: Config, tmp_path: Path
) -> None:
    project = polishing_project(config)
    secret = tmp_path / "secret.txt"
    secret.write_text("private key")
    plan = project.docs_dir / "plan.md"
    plan.unlink()
    plan.symlink_to(secret)
    panel = _panel(config, project)
    assert "private key" not in panel.deliverable_html
    assert "is a symbolic link" in panel.problems[0]


def test_a_document_of_a_plugins_type_is_shown_from_where_its_plugin_keeps_it(
    write_config: Callable[..., Path],
) -> None:
    """A type no core line knows (the example checklist plugin) is previewed like a plan."""
    config = load_config(write_config(plugins={"directory": str(EXAMPLE_PLUGINS)}))
    project = polishing_project(config)
    checklist = read_status(project.dir).model_copy(
        update={"deliverable_type": DeliverableType("checklist")}
    )
    write_status(project.dir, checklist)
    (project.docs_dir / "checklist.md").write_text(
        "# Moving house\n\n## Before\n\n- [ ] Book a van\n"
    )
    panel = _panel(config, project)
    assert "Book a van" in panel.deliverable_html
    assert "Section 1" not in panel.deliverable_html  # not the plan beside it


def test_the_panel_lists_the_trackers_open_and_dismissed_findings_escaped(config: Config) -> None:
    project = polishing_project(config)
    found = [
        Issue(severity="critical", description="Budget <b>lacks</b> a buffer", location="Budget"),
        Issue(severity="medium", description="No rain plan.", location="Risks"),
    ]
    tracker = after_review(FindingTracker(), 1, found, [])
    why = [Dismissal(id="F2", reason="Section 5 <i>has</i> one.")]
    write_tracker(project.dir, after_review(tracker, 2, found[:1], why))
    write_polish_state(project.dir, PolishState(iteration=2))

    panel = _panel(config, project)

    assert [(f.id, f.open) for f in panel.findings] == [("F1", True), ("F2", False)]
    assert panel.findings[0].state == "open, found at iteration 1 (2 review(s))"
    templates = Jinja2Templates(directory=REPO_ROOT / "thoughtforge" / "web" / "templates")
    html = templates.get_template("_findings.html").render(panel=panel)
    assert "<h2>Findings: 1 open</h2>" in html
    assert "Budget &lt;b&gt;lacks&lt;/b&gt; a buffer" in html and "<b>" not in html
    assert "dismissed at iteration 2: Section 5 &lt;i&gt;has&lt;/i&gt; one." in html


def test_the_panel_shows_each_criterion_with_its_evidence_inert(config: Config) -> None:
    """`docs/traceability.md` is a panel of its own; what a test's name says stays text."""
    project = polishing_project(config)
    traces = [
        Trace(
            criterion=Criterion(number=1, text="Budget stays under 15k"),
            evidence=[Evidence(what="test_b.py::test_ac_1_<script>x</script>", result="passed")],
        ),
        Trace(criterion=Criterion(number=2, text="Rain plan exists")),
    ]
    (project.dir / "docs" / "traceability.md").write_text(render("Wedding", traces))

    html = _panel(config, project).traceability_html

    assert "Budget stays under 15k" in html and "No evidence." in html
    assert "<script>" not in html and "&lt;script&gt;" in html
