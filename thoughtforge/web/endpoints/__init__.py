"""The workbench's endpoints by area: `pages` (the inbox, a project's thread, the board),
`project_actions` (new project, answer, draft, archive, file drop), `history`, `prompts` (the
prompt editor), `events` (the live stream), over `contexts`, what a page and the stream both
render. `app` routes to them."""
