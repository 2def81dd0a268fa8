"""Prefect flows: one module per phase, thin layers over the core modules.

Importing this package turns off Prefect's usage telemetry unless the operator set it: ThoughtForge
runs offline by default, and the telemetry call only produces errors there.
"""

import os

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
