"""The Prefect stack ThoughtForge runs on, from the outside: its server (find it, start and stop
it with `up`/`down`), database, workers, work pool, concurrency limits and deployments, and the
REST calls that hand a person's answer to a waiting run.

Plain HTTP (httpx), no Prefect import: an answer such as `thoughtforge say` must arrive in a
fraction of a second, and importing Prefect alone takes longer than that. Imports the layers
below it (docs/ARCHITECTURE.md), never `actions`, `flows` or a door.

Import from its modules (`thoughtforge.stack.api`): this package re-exports nothing.
"""
