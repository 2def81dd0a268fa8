#!/bin/sh
# Test agent: starts a grandchild, records both pids, and never answers.
sleep 300 &
echo "$! $$" >> "$RECORD_DIR/pids"
wait
