#!/usr/bin/env python3
"""Writes a first line, then waits (at most 20 s) until ThoughtForge's stream file of the call in
flight holds it, and answers with what the call record and the stream said at that moment."""

import json
import os
import sys
import time
from pathlib import Path

project = Path(os.environ["THOUGHTFORGE_PROJECT_DIR"])
sys.stdin.read()
print("first line of the answer", flush=True)
deadline = time.monotonic() + 20
stream = project / ".agent_stream.txt"
while time.monotonic() < deadline:
    if stream.exists() and "first line of the answer\n" in stream.read_text():
        break
    time.sleep(0.02)
record = json.loads((project / ".agent_call.json").read_text())
print(f"seen step={record['step']} attempt={record['attempt']} stream={stream.read_text()!r}")
