#!/usr/bin/env bash
# test_cli_docker.sh - `agent-sandbox run --backend docker` ended by a signal mid-run leaves no
# container behind (red-team finding: a SIGTERM'd CLI left it, with its volume, until the next
# run or cleanup) and ends as the signal would have (128 + signal). Skips with a reason when no
# engine answers; with ASB_REQUIRE_DOCKER=1 (CI) that is a failure.
set -euo pipefail
. "$(dirname "$0")/docker_engine.sh"
if [ "$(id -u)" != 0 ]; then skip "needs root"; fi
need_engine

fail=0
ours() { # containers whose owner label names the CLI process $1
    curl -fsS --unix-socket "$SOCK" \
        "http://docker/containers/json?all=1&filters=%7B%22label%22%3A%5B%22org.agent-sandbox.owner%22%5D%7D" |
        /usr/bin/python3 -c "import json,sys; print(sum(1 for c in json.load(sys.stdin) if c['Labels'].get('org.agent-sandbox.owner','').startswith('asb-$1-')))"
}
for case in "TERM --backend docker" "INT --backend docker" "TERM --profile docker-hardened"; do
    read -r sig how what <<<"$case"
    # A background job of a non-interactive shell starts with SIGINT ignored, and an ignored
    # signal stays ignored (by design): start it with every disposition at its default.
    /usr/bin/python3 -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$CLI" run "$how" "$what" --timeout 60 \
        --code 'import time; time.sleep(60)' </dev/null >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 100); do # until its container exists (at most 10 s)
        [ "$(ours $pid)" -ge 1 ] && break
        sleep 0.1
    done
    before=$(ours $pid)
    kill -s "$sig" "$pid"
    rc=0
    wait "$pid" || rc=$?
    after=$(ours $pid)
    want=$((128 + $(kill -l "$sig")))
    if [ "$before" -ge 1 ] && [ "$after" = 0 ] && [ "$rc" = "$want" ]; then
        echo "ok   SIG$sig mid-run ($how $what): exit $rc, its container removed"
    else
        echo "FAIL SIG$sig mid-run ($how $what): containers before $before, after $after, exit $rc (want $want)"
        fail=1
    fi
done
# A signal the caller ignores (nohup) stays ignored: the run goes on to its end.
( trap '' HUP; exec "$CLI" run --backend docker --code 'import time; time.sleep(3); print("done")' \
    </dev/null >"${TMPDIR:-/tmp}/asb-cli-docker-hup.$$" 2>/dev/null ) &
pid=$!
for _ in $(seq 100); do
    [ "$(ours $pid)" -ge 1 ] && break
    sleep 0.1
done
kill -s HUP "$pid"
rc=0
wait "$pid" || rc=$?
if [ "$rc" = 0 ] && grep -q done "${TMPDIR:-/tmp}/asb-cli-docker-hup.$$"; then
    echo "ok   an ignored SIGHUP leaves the run alone (exit 0, it finished)"
else
    echo "FAIL an ignored SIGHUP: exit $rc"
    fail=1
fi
rm -f "${TMPDIR:-/tmp}/asb-cli-docker-hup.$$"

# A stopped caller does not stop the deadline: the container's supervisor never blocks writing
# output the engine is not taking (crash-QA finding, native and docker alike).
rec="${TMPDIR:-/tmp}/asb-cli-docker-stop.$$"
trap 'rm -f "$rec"' EXIT # also when a step fails under set -e
"$CLI" run --backend docker --timeout 2 --output-limit 33554432 --json --code 'import os, time
time.sleep(1)
if os.fork() == 0:
    os.write(1, b"x" * 20000000); os._exit(0)
while True: pass' </dev/null >"$rec" 2>/dev/null &
pid=$!
for _ in $(seq 100); do
    [ "$(ours $pid)" -ge 1 ] && break
    sleep 0.1
done
sleep 1.5
kill -STOP "$pid" 2>/dev/null || true # a slow engine: the record below still says what happened
sleep 6
kill -CONT "$pid" 2>/dev/null || true
wait "$pid" || true
if /usr/bin/python3 - "$rec" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"     status {r['status']}, cpu_time_s {r['cpu_time_s']:.2f}, duration_s {r['duration_s']:.2f}")
sys.exit(0 if r["status"] in ("timeout", "output_limit") and r["cpu_time_s"] < 3.0 else 1)
PY
then
    echo "ok   a stopped caller: the container's workload still ends at its deadline"
else
    echo "FAIL a stopped caller let the container's workload run past its deadline: $(head -c 300 "$rec")"
    fail=1
fi
rm -f "$rec"
# A command that cannot exec has exit_code null here too (review finding: only native and
# subprocess were checked).
"$CLI" run --backend docker --json -- /nonexistent/prog </dev/null >/tmp/asb-dexec.$$.json 2>/dev/null || true
if /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["status"] == "sandbox_error" and d["exit_code"] is None else 1)' /tmp/asb-dexec.$$.json; then
    echo "ok   docker: a command that cannot exec has exit_code null"
else
    echo "FAIL docker exec failure record: $(head -c 300 /tmp/asb-dexec.$$.json)"
    fail=1
fi
rm -f /tmp/asb-dexec.$$.json
# On cgroup v1 the host sets the container's TCP memory limit through the engine's pid of the
# container; from another pid namespace that pid is not the container's process, and the run is
# refused, never released without the limit (review finding: the limit went onto an unrelated
# cgroup). Skipped on pure v2 hosts, where nothing is written.
if grep -q ':memory:' /proc/self/cgroup && command -v unshare >/dev/null 2>&1; then
    rc=0
    unshare -pf --mount-proc "$CLI" run --backend docker --code 'print(1)' </dev/null \
        >/dev/null 2>/tmp/asb-dpidns.$$ || rc=$?
    if [ "$rc" = 125 ] && grep -q "pid namespace" /tmp/asb-dpidns.$$; then
        echo "ok   docker from another pid namespace on cgroup v1: refused (exit 125)"
    else
        echo "FAIL docker from another pid namespace: exit $rc, $(head -c 300 /tmp/asb-dpidns.$$)"
        fail=1
    fi
    rm -f /tmp/asb-dpidns.$$
else
    echo "SKIP pid-namespace case: not a cgroup v1 memory host, or no unshare(1)"
fi
# The default image carries the stdlib, not pieces of third-party packages: Debian's
# python3-numpy puts one extension module under /usr/lib/python3.11/dist-packages, and the
# image had a numpy that imported and then failed (QA finding). Either no numpy, or a whole one.
if have_image; then
    out=$("$CLI" run --backend docker --profile baseline --code '
import importlib.util
s = importlib.util.find_spec("numpy")
if s is None:
    print("no numpy")
else:
    import numpy.random
    print("whole numpy")' </dev/null 2>/dev/null || true)
    case "$out" in
    "no numpy" | "whole numpy") echo "ok   the image's python has $out" ;;
    *) echo "FAIL the image's python has a partial package: '$out'"; fail=1 ;;
    esac
else
    echo "SKIP image check: agent-sandbox/python:latest missing"
fi
# The code's file name reaches the container, inline and through the io volume (a program over
# the inline size), and --exec-in is refused before any container exists.
if have_image; then
    # From a file: one argument over 128 KiB is more than execve takes (E2BIG).
    bigsrc="${TMPDIR:-/tmp}/asb-cli-docker-big.$$.py"
    python3 -c 'print("x = 1\n" * 40000 + "print(__file__)")' >"$bigsrc"
    a=$("$CLI" run --backend docker --code 'print(__file__)' --code-name sol.py </dev/null 2>/dev/null || true)
    b=$("$CLI" run --backend docker --file "$bigsrc" --code-name big.py </dev/null 2>/dev/null || true)
    rm -f "$bigsrc"
    if [[ $a == /workspace/sol.py && $b == /workspace/big.py ]]; then
        echo "ok   docker: --code-name names the code (inline and from the volume)"
    else
        echo "FAIL docker: --code-name: '$a' '$b'"; fail=1
    fi
else
    echo "SKIP docker --code-name: agent-sandbox/python:latest missing"
fi
# docker-baseline's writable layer on the engine's disk: a workload that makes directories as fast
# as it can makes the container's removal slow. The run must still end near its deadline with its
# verdict (it was a sandbox_error 30 s late: red-team finding); the engine finishes the removal by
# itself, and nothing of ours may remain once it has.
rec="${TMPDIR:-/tmp}/asb-cli-docker-inodes.$$"
t0=$(date +%s%N)
"$CLI" run --backend docker --profile baseline --timeout 2 --json --code 'import os, time
os.makedirs("/var/tmp/m", exist_ok=True)
for k in range(4):
    if os.fork() == 0:
        d = "/var/tmp/m/%d" % k
        os.mkdir(d)
        i = 0
        while True:
            os.mkdir("%s/%d" % (d, i))
            i += 1
time.sleep(60)' </dev/null >"$rec" 2>/dev/null &
pid=$!
wait "$pid" || true
ms=$((($(date +%s%N) - t0) / 1000000))
if /usr/bin/python3 - "$rec" "$ms" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ms = int(sys.argv[2])
print(f"     status {r['status']}, {ms} ms, note: {r['error']}")
# deadline 2 s + 1 s backstop slack + 5 s removal wait + 4 s for a loaded engine
sys.exit(0 if r["status"] == "timeout" and ms < 12000 else 1)
PY
then
    echo "ok   docker-baseline filling its layer with directories: timeout, returned in $ms ms"
else
    echo "FAIL docker-baseline with a slow removal: ${ms} ms, $(head -c 300 "$rec")"
    fail=1
fi
rm -f "$rec"
left=1
for _ in $(seq 120); do
    left=$(ours "$pid")
    [ "$left" = 0 ] && break
    sleep 1
done
if [ "$left" = 0 ]; then
    echo "ok   ... and the engine finished removing it (no container of that run left)"
else
    echo "FAIL $left container(s) of that run still there 120 s later"
    fail=1
fi

# TERM before the container exists, while the engine is creating it: the sweep the CLI made at
# once ran before the create finished, and a Created container with its volume stayed (red-team
# finding). The CLI now sweeps again for a second when an engine answers.
for delay in 0.02 0.06 0.1; do
    /usr/bin/python3 -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$CLI" run --profile docker-hardened --file-in /etc/hostname:h \
        --timeout 60 --code 'import time; time.sleep(60)' </dev/null >/dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    kill -TERM "$pid"
    rc=0
    wait "$pid" || rc=$?
    sleep 1 # a create still in flight would have landed by now
    after=$(ours $pid)
    if [ "$after" = 0 ]; then
        echo "ok   SIGTERM ${delay} s into a docker run (exit $rc): no container of it left"
    else
        echo "FAIL SIGTERM ${delay} s into a docker run (exit $rc): $after container(s) of it left"
        fail=1
    fi
done

# A workload that makes PID 1 (its supervisor, the same uid) SCHED_IDLE and spins 41 processes
# starved it: the engine's kill reaches PID 1 alone, which never ran to die, and a 2 s run lasted
# about 40 s and ended as a sandbox_error (red-team finding). The host now kills every process of
# the container's cgroup at the backstop: the run is a timeout near its deadline.
for profile in docker-hardened docker-baseline; do
    rec=$(mktemp)
    start=$(date +%s.%N)
    "$CLI" run --profile "$profile" --json --timeout 2 --code 'import os
os.sched_setscheduler(1, os.SCHED_IDLE, os.sched_param(0))
for _ in range(40):
    if os.fork() == 0:
        while True: pass
while True: pass' </dev/null >"$rec" 2>/dev/null || true
    end=$(date +%s.%N)
    got=$(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["status"])' "$rec" 2>/dev/null || echo none)
    took=$(/usr/bin/python3 -c "print(round($end - $start, 1))")
    if [ "$got" = timeout ] && /usr/bin/python3 -c "import sys; sys.exit(0 if $took < 15 else 1)"; then
        echo "ok   $profile: PID 1 made SCHED_IDLE under 41 spinners: timeout after $took s (limit 2 s)"
    else
        echo "FAIL $profile: PID 1 starved: status $got after $took s (limit 2 s): $(head -c 300 "$rec")"
        fail=1
    fi
    rm -f "$rec"
done

# The same starvation when the caller dies: the engine's kill and forced removal reach PID 1
# alone, so a SIGKILLed CLI's container kept running for minutes and every cleanup failed to
# remove it ("did not receive an exit event"; red-team finding, session 14). The reaper now
# kills the container's cgroup first: one cleanup removes it.
"$CLI" run --profile docker-baseline --timeout 60 --code 'import os
os.sched_setaffinity(0, {0})
os.sched_setaffinity(1, {0})
os.sched_setscheduler(1, os.SCHED_IDLE, os.sched_param(0))
for _ in range(300):
    if os.fork() == 0:
        while True: pass
while True: pass' </dev/null >/dev/null 2>&1 &
pid=$!
for _ in $(seq 60); do
    [ "$(ours "$pid")" = 1 ] && break
    sleep 0.5
done
sleep 3 # the spinners start and PID 1 starves
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
start=$(date +%s.%N)
out=$("$CLI" cleanup 2>&1 || true)
took=$(/usr/bin/python3 -c "print(round($(date +%s.%N) - $start, 1))")
left=$(ours "$pid")
if [ "$left" = 0 ]; then
    echo "ok   a SIGKILLed CLI's container with a starved PID 1: one cleanup removed it in $took s"
else
    echo "FAIL a SIGKILLed CLI's container with a starved PID 1: $left left after cleanup ($took s): $(echo "$out" | head -c 300)"
    fail=1
    "$CLI" cleanup >/dev/null 2>&1 || true
fi
exit $fail
