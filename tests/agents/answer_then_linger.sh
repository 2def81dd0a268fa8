#!/bin/sh
# Test agent: leaves a child in its own process group holding stdout, answers, and exits 0.
sleep 600 &
echo "$!" >> "$RECORD_DIR/lingering"
echo "the answer"
exit 0
