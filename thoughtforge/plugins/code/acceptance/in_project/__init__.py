"""What ThoughtForge runs inside the project's own interpreter when it runs the locked tests:
`record_plugin` (loaded into its pytest run with `-p`) and `plain_run` (the second run, outside
pytest). Neither imports ThoughtForge, which that interpreter may not have: `runner` copies their
files into its scratch folder and runs them there."""
