"""A flow run in the CLI's process: made with its plain parameters, then run to its end.

The run happens in a fresh interpreter, as the CLI's, against the real test server, so what the
run imported can be told.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from thoughtforge.stack.api import PrefectApi

RUN_A_FLOW_HERE = """
import json, sys
from prefect import runtime
from prefect.flows import flow
from thoughtforge.flows.runtime.in_process import run_here

@flow(name="echo")
def echo(text: str, loud: bool) -> dict:
    return {"said": text.upper() if loud else text, "run": str(runtime.flow_run.id)}

returned = run_here(echo, text="hi", loud=True)
print(json.dumps({**returned, "fastapi": "fastapi" in sys.modules}))
"""


def test_the_run_is_made_with_its_parameters_and_loads_no_fastapi(prefect_api_url: str) -> None:
    ran = subprocess.run(
        [sys.executable, "-c", RUN_A_FLOW_HERE],
        env={**os.environ, "PREFECT_API_URL": prefect_api_url},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    returned = json.loads(ran.stdout.splitlines()[-1])
    assert returned["said"] == "HI", "the flow's own return value"
    assert returned["fastapi"] is False, "calling the flow would serialise with FastAPI"
    recorded = PrefectApi(prefect_api_url).call("GET", f"/flow_runs/{returned['run']}")
    assert recorded["parameters"] == {"text": "hi", "loud": True}
    assert recorded["state"]["type"] == "COMPLETED"
