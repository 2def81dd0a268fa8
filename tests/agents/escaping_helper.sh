#!/bin/sh
# Test agent: starts a helper in a session of its own that inherits stdout (so killing the agent's
# process group cannot reach it), records its pid, and never answers.
setsid sleep 600 &
echo "$!" >> "$RECORD_DIR/helpers"
sleep 600
