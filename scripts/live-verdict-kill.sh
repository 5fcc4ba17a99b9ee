#!/usr/bin/env bash
# A run killed with SIGKILL leaves its last snapshot and a history `paystorm check` judges.
# Runs `mixed` against the embedded reference service for RUN (default 20m) with
# --snapshot-every EVERY (default 1m), kills it with kill -9 at KILL_AT (default 10m), then shows
# the snapshot it left and runs `paystorm check` on its folder (expected: exit 130, incomplete).
#
#   scripts/live-verdict-kill.sh [RUN] [EVERY] [KILL_AT_SECONDS]     e.g. scripts/live-verdict-kill.sh 2m 20s 60
set -euo pipefail
RUN=${1:-20m}
EVERY=${2:-1m}
KILL_AT=${3:-600}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mktemp -d "${TMPDIR:-/tmp}/paystorm-kill-XXXXXX")
echo "run: mixed --duration $RUN --snapshot-every $EVERY, killed at ${KILL_AT}s; reports in $OUT"
node "$ROOT/bin/paystorm.js" run mixed --duration "$RUN" --snapshot-every "$EVERY" --out "$OUT" 2>"$OUT/stderr.log" >/dev/null &
PID=$!
sleep "$KILL_AT"
kill -9 "$PID"
wait "$PID" 2>/dev/null || true
RUN_DIR=$(find "$OUT" -mindepth 1 -maxdepth 1 -type d ! -name latest | head -1)
echo "left behind in $RUN_DIR:"
ls -l "$RUN_DIR"
node -e '
const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
console.log(`summary.json: snapshot ${s.snapshot} at ${Math.round((s.snapshotAtMs ?? 0) / 1000)} s, ${s.metrics.requests} requests, ${s.reason}`);
' "$RUN_DIR/summary.json"
set +e
node "$ROOT/bin/paystorm.js" check "$RUN_DIR" >"$OUT/check.txt" 2>"$OUT/check.stderr"
CODE=$?
set -e
tail -n 3 "$OUT/check.txt"
grep -h "cut short" "$OUT/check.stderr" || true
node -e '
const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
console.log(`check: ${s.metrics.requests} requests judged, complete ${s.complete}, ${s.reason}`);
' "$RUN_DIR/summary.json"
echo "paystorm check exit code: $CODE (expected 130)"
[ "$CODE" -eq 130 ]
