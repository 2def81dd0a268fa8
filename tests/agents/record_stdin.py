#!/usr/bin/env python3
"""Test agent: saves the exact bytes it got on stdin and its THOUGHTFORGE_* environment."""

import json
import os
import sys
from pathlib import Path

record = Path(os.environ["RECORD_DIR"])
record.mkdir(parents=True, exist_ok=True)
(record / "stdin.bin").write_bytes(sys.stdin.buffer.read())
(record / "argv.json").write_text(json.dumps(sys.argv[1:]))
env = {k: v for k, v in os.environ.items() if k.startswith("THOUGHTFORGE_")}
(record / "env.json").write_text(json.dumps(env))
print("recorded")
