"""Code steps as Vibe Kanban task attempts (`vibekanban.code_execution`), not direct agent calls.

Vibe Kanban 0.0.71 runs an attempt in a git worktree of its project's repository, on a branch of
its own, commits what the executor changed there, and on request squashes that branch into the
base branch. So each code project gets a Vibe Kanban project whose repository is the ThoughtForge
project itself (Vibe Kanban allows one project per repository path: it is found by that path),
each step a task whose description is the prompt, and each try an attempt on that task:

    POST /api/task-attempts {task_id, executor_profile_id: {executor, variant}, base_branch}
    GET  /api/execution-processes?task_attempt_id=…    status: running|completed|failed|killed
    POST /api/task-attempts/{id}/stop                    at the timeout
    GET  /api/task-attempts/{id}/branch-status           commits_ahead: is there work to merge?
    POST /api/task-attempts/{id}/merge                   one squash commit on the base branch
    GET  /api/execution-processes/{id}/raw-logs          the executor's stdout/stderr (SSE)

The executor reads `Title: <step>\\n\\nDescription:<prompt>` on stdin, in the worktree; it does
not get ThoughtForge's `THOUGHTFORGE_*` environment. An attempt has ended when no process runs
and Vibe Kanban has moved the task out of `inprogress`, which it does only after committing the
agent's work, so a merge never races that commit. The project's own pending changes are
committed first, so the worktree starts from them and Vibe Kanban's merge (which refuses a main
tree with uncommitted tracked changes) can run. A merged step is committed: its work is not left
uncommitted as a direct call leaves it.

Vibe Kanban falls back to an executor's `DEFAULT` variant for a variant it does not know, so the
configured profile is checked against `GET /api/profiles` before any attempt. Like a direct call,
a failed try (HTTP error, attempt failed or killed, timeout, merge refused) is retried once, as a
new attempt on the same task, and then raises `AgentFailure`.
"""

from thoughtforge.adapters.kanban.attempts.coder import VibeKanbanCoder

__all__ = ["VibeKanbanCoder"]
