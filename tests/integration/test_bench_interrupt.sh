#!/usr/bin/env bash
# test_bench_interrupt.sh - a bench interrupted (TERM from timeout(1)) removes what its tasks
# staged and ends 128+N without an artifact, in the subprocess and native lanes; a bench killed
# outright (SIGKILL) leaves staged directories that `agent-sandbox cleanup` removes, including
# those the subprocess lane's grader handed to uid 65534 (found in session 8: cleanup skipped
# them, and an interrupted bench left them behind).
set -euo pipefail
CLI=${ASB_CLI:?}
PY=/usr/bin/python3
if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root (native sandboxes, cleanup)"; exit 0; fi
work=$(mktemp -d /tmp/asb-test-bench-int-XXXXXX)
trap 'rm -rf "$work"' EXIT
# Six tasks whose reference takes 3 s: an interrupt after 1.5 s finds them in progress.
$PY - "$work/slow.json" <<'PY'
import json, sys
task = lambda i: {"id": f"slow/{i}", "prompt": "f", "entry_file": "solution.py",
                  "entry_point": "f",
                  "reference": {"solution.py": "import time\ntime.sleep(3)\ndef f():\n    return 1\n"},
                  "oracle": {"kind": "python_check", "test": "def check(c):\n    assert c() == 1\n"}}
json.dump({"format": "agent-sandbox.bench-suite/1", "name": "slow",
           "tasks": [task(i) for i in range(6)]}, open(sys.argv[1], "w"))
PY
fail=0
staged() { { ls -d /tmp/asb-"$1"-* 2>/dev/null || true; } | wc -l; }
for lane in subprocess native; do
    "$CLI" bench "$work/slow.json" --reference --sandbox "$lane" --jobs 2 --out "$work/a-$lane.json" \
        >/dev/null 2>"$work/err" &
    pid=$!
    sleep 1.5
    during=$(staged "$pid")
    kill -TERM "$pid"
    rc=0
    wait "$pid" || rc=$?
    left=$(staged "$pid")
    if [ "$rc" = 143 ] && grep -q "interrupted by signal 15" "$work/err" && [ "$during" -gt 0 ] &&
        [ "$left" = 0 ] && [ ! -e "$work/a-$lane.json" ]; then
        echo "ok   $lane: interrupted with $during staged dir(s): exit 143, none left, no artifact"
    else
        echo "FAIL $lane: exit $rc, staged during $during, left $left, $(cat "$work/err")"
        fail=1
    fi
done
# SIGKILL: nothing of ours runs any more; cleanup finds the dead owner's directories.
"$CLI" bench "$work/slow.json" --reference --sandbox subprocess --jobs 2 --out "$work/k.json" \
    >/dev/null 2>&1 &
pid=$!
sleep 1.5
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
sleep 3.5 # the killed run's programs end on their own (subprocess: no sandbox to take them)
during=$(staged "$pid")
"$CLI" cleanup >"$work/cleanup.txt" 2>&1 || true
left=$(staged "$pid")
if [ "$during" -gt 0 ] && [ "$left" = 0 ]; then
    echo "ok   SIGKILLed bench: cleanup removed its $during staged dir(s)"
else
    echo "FAIL SIGKILLed bench: $during staged dir(s), $left left after cleanup: $(cat "$work/cleanup.txt")"
    fail=1
fi
exit $fail
