"""The workbench: the page a person works with ThoughtForge in — the inbox of what waits for them,
one thread per project, a composer that offers only what the current wait accepts, file drop,
live updates, the board and the prompt editor.

A Starlette app (`app.py`: the routes table; `endpoints/`: small endpoints by area, on
`workbench`) over `actions` (what a person does, the same functions the CLI and the MCP server
call, and the read models it renders) and the page's own modules: `thread` (messages as safe
HTML), `progress` (Phases 3–4), `live` (what changed since the page last looked). It never
imports Prefect; `serving.guard` keeps other sites and other hosts out.
"""
