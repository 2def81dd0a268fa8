#!/bin/sh
# Test agent: fails on its first call, answers on the second (counts calls in $RECORD_DIR).
cat > /dev/null
echo call >> "$RECORD_DIR/calls"
if [ "$(wc -l < "$RECORD_DIR/calls")" -lt 2 ]; then
  echo "transient failure" >&2
  exit 7
fi
echo "second time lucky"
