#!/usr/bin/env python3
"""Test agent: answers with $FLOOD_BYTES bytes (default 5 MB) of '{'."""

import os
import sys

sys.stdin.read()
sys.stdout.write("{" * int(os.environ.get("FLOOD_BYTES", 5_000_000)))
