"""What an agent tool can do with ThoughtForge's projects: each tool is a plain function over
`actions`, the functions the page and the CLI call (starting, answering, archiving, restoring,
the inbox), so a tool can do nothing the page would refuse, and refuses in the same words.

`Tools` is every tool at once: here the projects (create, list, archive, status, thread), spend
and history; `turns` the person's answers and the drafts; `documents` what a project made. A
refusal is a `ThoughtForgeError`; the MCP server hands it to the agent as a tool error. History
reads `actions.history`, as the page's History does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from thoughtforge.actions.archiving import archive_project, unarchive_project
from thoughtforge.actions.documents import DOCUMENTS
from thoughtforge.actions.history import history
from thoughtforge.actions.inbox import inbox
from thoughtforge.actions.process_run import start_project_run
from thoughtforge.actions.project_page import project_page
from thoughtforge.actions.restoring import restore
from thoughtforge.actions.starting import DroppedFile, NewProject, create_from_request
from thoughtforge.bounded_input import read_capped
from thoughtforge.core import brain_dump_text, read_thread, refuse_links
from thoughtforge.core.spend import SpendSummary, change_budget, spend_of
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.mcp_server.agent_words import for_agent
from thoughtforge.mcp_server.answers import RESOURCE_URI, Message
from thoughtforge.mcp_server.documents import DocumentTools
from thoughtforge.mcp_server.turns import TurnTools, message_of


class Tools(TurnTools, DocumentTools):
    """The tools, bound to one config file (followed as it changes, as the workbench does)."""

    # --- projects ------------------------------------------------------------------------------

    def create_project(
        self,
        brain_dump: str = "",
        brain_dump_file: str = "",
        agent: str | None = None,
        deliverable_type: str = "",
        resources: list[str] | None = None,
    ) -> dict[str, Any]:
        if bool(brain_dump.strip()) == bool(brain_dump_file):
            raise ThoughtForgeError("give the brain dump as text or as a file, one of the two")
        text = brain_dump_text(brain_dump, brain_dump_file)
        if not text.strip():
            raise ThoughtForgeError("the brain dump is empty: say what you want made")
        files = [self._resource(Path(path)) for path in resources or []]
        request = NewProject(
            brain_dump=text, agent=agent, deliverable_type=deliverable_type, files=files
        )
        project = create_from_request(self.config, request)
        started = start_project_run(self.config, self.config_file, project)
        return {
            "project_id": project.id,
            "folder": str(project.dir),
            "note": for_agent(started.note),
            "next": "send_message to add to the brain dump or answer the AI's questions, "
            "distill when everything is said",
        }

    def list_projects(self, include_archived: bool = False) -> dict[str, Any]:
        box = inbox(self.config)
        return {
            "projects": [
                {
                    **_in_agent_words(entry.model_dump(mode="json", exclude_none=True)),
                    "resources": [
                        RESOURCE_URI.format(project_id=entry.project_id, document=name)
                        for name in ("deliverable", *DOCUMENTS)
                    ],
                }
                for entry in (box.entries if include_archived else box.listed)
            ],
            "active": f"{box.active}/{box.limit}",
            "full": box.full,
        }

    def archive(self, project_id: str) -> dict[str, Any]:
        status = archive_project(self.config, self.project(project_id))
        return {"project_id": project_id, "phase": status.phase.value, "archived": True}

    def unarchive(self, project_id: str) -> dict[str, Any]:
        status = unarchive_project(self.project(project_id))
        return {"project_id": project_id, "phase": status.phase.value, "archived": False}

    def project_status(self, project_id: str) -> dict[str, Any]:
        page = project_page(self.config, self.project(project_id))
        status = page.status
        return {
            "project_id": page.project.id,
            "name": status.project_name or page.project.id,
            "phase": status.phase.value,
            "run": page.run.value,
            "waits_for": for_agent(page.waits_for) if page.waits_for else None,
            "halt_reason": status.halt_reason,
            "deliverable_type": status.deliverable_type,
            "agent": status.agent,
            "archived": status.archived_at is not None,
            "revision": page.revision,
            "open_findings": page.view.open_findings,
            "actions_now": [action.name for action in page.composer.actions],
            "note": for_agent(page.composer.note),
        }

    def read_thread(self, project_id: str, last: int = 20) -> list[Message]:
        messages = read_thread(self.project(project_id).dir)
        return [message_of(message) for message in messages[-last:]]

    def _resource(self, path: Path) -> DroppedFile:
        """A file given as a resource: a regular file (no link) within the size cap."""
        refuse_links(path)
        data = read_capped(path, self.config.resources.max_file_bytes, "resource")
        return DroppedFile(name=path.name, data=data)

    # --- spend ---------------------------------------------------------------------------------

    def spend(
        self, project_id: str, budget_usd: float | None, budget_tokens: int | None
    ) -> dict[str, Any]:
        """What the project spent and may spend; with a budget, its own budget set first (as
        `thoughtforge budget ID --usd N` sets it)."""
        project = self.project(project_id)
        warning = None
        if budget_usd is not None or budget_tokens is not None:
            summary, warning = change_budget(self.config, project, budget_usd, budget_tokens)
        else:
            summary = spend_of(self.config, project)
        return _spend_answer(summary, warning)

    # --- after done: history and rollback ------------------------------------------------------

    def history(self, project_id: str) -> list[dict[str, Any]]:
        """Every commit, oldest first; `name` is what `rollback` takes (or the commit id)."""
        project = self.project(project_id)
        return [
            {
                "name": item.name,
                "commit": item.short,
                "revision": item.revision,
                "time": f"{item.when:%Y-%m-%d %H:%M} UTC",
                "what": item.what,
            }
            for item in history(project)
        ]

    def rollback(self, project_id: str, to: str, keep_edits: bool = False) -> dict[str, str]:
        restored = restore(self.project(project_id), to, keep_edits=keep_edits)
        return {"restored": restored.label, "phase": restored.phase.value, "note": restored.note}


def _in_agent_words(entry: dict[str, Any]) -> dict[str, Any]:
    """An inbox entry with its waits-for text naming tools, not the page's buttons."""
    if isinstance(entry.get("waits_for"), str):
        entry["waits_for"] = for_agent(entry["waits_for"])
    return entry


def _spend_answer(summary: SpendSummary, warning: str | None) -> dict[str, Any]:
    if summary.error is not None:
        raise ThoughtForgeError(summary.error)
    answer: dict[str, Any] = {
        "spent": summary.line,
        "spent_usd": summary.total.usd,
        "spent_tokens": summary.total.tokens,
        "budget_usd": summary.budget.max_usd,
        "budget_tokens": summary.budget.max_tokens,
        "budget_from": "the project's own" if summary.own_budget else "config.yaml (budget)",
        "breakdown": dict(summary.breakdown()),
    }
    if warning:
        answer["warning"] = warning
    return answer
