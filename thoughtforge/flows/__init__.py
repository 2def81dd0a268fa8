"""The Prefect layer: the pipeline flow and the scheduled re-polish, a module per phase's part
of the run (thin over `phases` and `plugins`), the waits for the person, and the Prefect runtime
they run in (how a run opens, its tags, heartbeats, shutdown and warm start, the server process,
the concurrency limits, and every Prefect internal used, in `prefect_internals`).

Importing this package turns off Prefect's usage telemetry unless the operator set it: ThoughtForge
runs offline by default, and the telemetry call only produces errors there.
"""

import os

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
