#!/usr/bin/env python3
"""Test agent: stands in for a CLI by printing what the real one printed, whatever its flags:
the file $REPLAY_STDOUT on stdout, $REPLAY_STDERR (if set) on stderr."""

import os
import sys
from pathlib import Path

sys.stdin.read()
sys.stdout.write(Path(os.environ["REPLAY_STDOUT"]).read_text())
if os.environ.get("REPLAY_STDERR"):
    sys.stderr.write(Path(os.environ["REPLAY_STDERR"]).read_text())
