"""The Prefect layer: the pipeline flow and the scheduled re-polish (the deployments'
entrypoints), a module per phase's part of the run (thin over `phases` and `plugins`), the
person's turn and the waits for the person; the Prefect plumbing they run in is `runtime`.

Importing this package turns off Prefect's usage telemetry unless the operator set it: ThoughtForge
runs offline by default, and the telemetry call only produces errors there.
"""

import os

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
