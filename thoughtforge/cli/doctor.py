"""`thoughtforge doctor`'s report: the checks of `actions.machine_checks`, and the row of the
Prefect internals this process runs on (`flows`), printed as a table or one line a check."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from thoughtforge.actions.machine_checks import Check, machine_checks
from thoughtforge.terminal_text import inert_markup


def run_checks(
    path: Path, *, send_test: bool = False, probe: bool = False, verbose: bool = False
) -> list[Check]:
    """Every check, in order; a missing or invalid config stops at the first. The Prefect
    internals are one row unless one is missing or `verbose` asks for each."""
    return machine_checks(
        path, lambda: _prefect_internals(verbose), send_test=send_test, probe=probe
    )


_MARKS = {"ok": "[green]ok[/]", "warn": "[yellow]warn[/]", "fail": "[red]FAIL[/]"}


def print_checks(console: Console, checks: list[Check]) -> None:
    """A table on a terminal, its long paths folded onto the next line rather than cut; piped
    to a file or another program, one whole line per check, however long."""
    if console.is_terminal:
        table = Table("check", "result", "detail", box=None)
        table.columns[2].overflow = "fold"
        for check in checks:
            table.add_row(
                inert_markup(check.name), _MARKS[check.outcome], inert_markup(check.detail)
            )
        console.print(table)
        return
    width = max(len(check.name) for check in checks)
    for check in checks:
        mark = _MARKS[check.outcome] + " " * (4 - len(check.outcome))
        console.print(
            f"{inert_markup(check.name.ljust(width))}  {mark}  {inert_markup(check.detail)}",
            soft_wrap=True,
            highlight=False,
        )


def _prefect_internals(verbose: bool) -> list[Check]:
    """The Prefect internals ThoughtForge borrows: a row for each one missing (what is lost
    without it), and one row for all that are there; `verbose` lists each one."""
    from thoughtforge.flows.runtime.prefect_internals import INTERNALS, problem

    missing, present = [], []
    for internal in INTERNALS:
        found = problem(internal.key)
        name = f"Prefect internal {internal.key}"
        if found is None:
            present.append(Check(name=name, outcome="ok", detail=internal.what))
        else:
            detail = f"missing — {internal.without} ({internal.what}: {found})"
            missing.append(Check(name=name, outcome="warn", detail=detail))
    if verbose or not present:
        return [*present, *missing]
    total = f"all {len(present)}" if not missing else f"{len(present)} of {len(INTERNALS)}"
    folded = Check(
        name="Prefect internals",
        outcome="ok",
        detail=f"{total} found in the installed Prefect (--verbose lists them)",
    )
    return [folded, *missing]
