#!/usr/bin/env bash
# test_chaos.sh - the full chaos matrix once, plus every attack's positive control.
# Fails when: any attack succeeds
# under hardened, cold or in a sandbox prepared ahead (pool-hardened); an attack outside
# baseline's documented set succeeds under baseline;
# any verdict is `error` (after one re-run of just the errored cells: `error` under heavy foreign
# load on a 2-core host is honest, twice in a row is a failure); a positive control does not
# say `succeeded` (n/a is accepted only where the host lacks the feature, and printed as SKIP);
# a cell the design says must be blocked under hardened is not.
set -euo pipefail
CLI=${ASB_CLI:-$(dirname "$0")/../../build/agent-sandbox}
PY=/usr/bin/python3
if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root (native sandboxes, host canary in /root)"; exit 0; fi
out=$(mktemp -d /tmp/asb-chaos-test-XXXXXX)
trap 'rm -rf "$out"' EXIT

start=$(date +%s.%N)
"$CLI" chaos --profiles subprocess,baseline,hardened,pool-hardened --jobs 6 --out "$out/matrix.json" >"$out/matrix.txt" || true
end=$(date +%s.%N)
tail -5 "$out/matrix.txt"
echo "full matrix wall time: $($PY -c "print(round($end-$start,1))") s"

"$CLI" chaos --controls --jobs 6 --out "$out/controls.json" >"$out/controls.txt" || true
# A positive control that says `error` (cpu_spin when the VM's CPUs are contended) is re-run,
# up to three times; an error every time is a failure.
for attempt in 1 2 3; do
    cretry=$($PY - "$out/controls.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(",".join(sorted({r["attack"] for r in d["runs"] if r["verdict"] == "error"})))
PY
)
    [ -n "$cretry" ] || break
    echo "re-running errored positive controls (attempt $attempt): $cretry"
    sleep 2
    "$CLI" chaos --controls --attacks "$cretry" --out "$out/cretry.json" >/dev/null || true
    $PY - "$out/controls.json" "$out/cretry.json" <<'PY'
import json, sys
d, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
again = {x["attack"]: x for x in r["runs"]}
d["runs"] = [again.get(x["attack"], x) if x["verdict"] == "error" else x for x in d["runs"]]
json.dump(d, open(sys.argv[1], "w"))
PY
done

# Re-run only the cells that errored, up to three times, merging each answer in.
for attempt in 1 2 3; do
    retry=$($PY - "$out/matrix.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(",".join(sorted({r["attack"] for r in d["runs"] if r["verdict"] == "error"})))
PY
)
    [ -n "$retry" ] || break
    echo "re-running errored attacks (attempt $attempt): $retry"
    sleep 2
    "$CLI" chaos --profiles subprocess,baseline,hardened,pool-hardened --attacks "$retry" --out "$out/retry.json" >/dev/null || true
    $PY - "$out/matrix.json" "$out/retry.json" <<'PY'
import json, sys
d, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
again = {(x["attack"], x["profile"]): x for x in r["runs"]}
d["runs"] = [again.get((x["attack"], x["profile"]), x) if x["verdict"] == "error" else x
             for x in d["runs"]]
json.dump(d, open(sys.argv[1], "w"))
PY
done
retry=""

$PY - "$out/matrix.json" "$out/controls.json" "${retry:+$out/retry.json}" <<'PY'
import json, sys
matrix = json.load(open(sys.argv[1]))
controls = json.load(open(sys.argv[2]))
retry = json.load(open(sys.argv[3])) if len(sys.argv) > 3 and sys.argv[3] else None
# mountinfo_leak is blocked too since /usr became an overlay (docs/CHAOS.md): a regression fails.
# signal_quota was a known hole until each sandbox's user namespace was owned by its own host uid
# (THREAT_MODEL, "Shared per-user counters"): it must stay blocked now.
# kernel_version_leak is blocked since hardened answers uname itself (supervisor/uname.c).
allowed = set()
# baseline promises less (docs/CHAOS.md, SPEC): the host network, Docker's capabilities inside its
# user namespace, limits above these attacks' size, fadvise on shared /usr pages. Everything else
# it must contain too (audit finding: its verdicts were printed, not asserted), e.g. the abstract
# sockets and signals Landlock scopes, the host's SysV IPC, host root's signal quota.
baseline_allowed = allowed | {"kernel_version_leak", "cap_effective", "cpu_migrate", "cpu_spin", "disk_fill", "dns_resolve", "fork_bomb",
                              "http_egress", "memory_bomb", "page_cache_evict", "tcp_backlog_hold",
                              "tcp_egress", "thread_bomb", "udp_egress"}
fail = []
runs = {(r["attack"], r["profile"]): r for r in matrix["runs"]}
if retry:
    for r in retry["runs"]:
        old = runs.get((r["attack"], r["profile"]))
        if old and old["verdict"] == "error":
            runs[(r["attack"], r["profile"])] = r
assert len(matrix["attacks"]) >= 30, "fewer than 30 attacks"
for (attack, profile), r in sorted(runs.items()):
    if r["verdict"] == "error":
        fail.append(f"{attack}/{profile}: error: {r['evidence']}")
    # pool-hardened: the same profile in a sandbox prepared ahead; it must contain as much.
    if profile in ("hardened", "pool-hardened") and r["verdict"] == "succeeded" and attack not in allowed:
        fail.append(f"HARDENED RUNTIME BUG ({profile}): {attack} succeeded: {r['evidence']}")
    if profile in ("hardened", "pool-hardened") and attack not in allowed and r["verdict"] not in ("blocked", "n/a"):
        fail.append(f"{attack}/{profile}: {r['verdict']} (expected blocked)")
    if profile == "baseline" and r["verdict"] == "succeeded" and attack not in baseline_allowed:
        fail.append(f"BASELINE RUNTIME BUG: {attack} succeeded: {r['evidence']}")
for r in controls["runs"]:
    if r["verdict"] == "succeeded":
        continue
    if r["verdict"] == "n/a":
        print(f"SKIP: positive control of {r['attack']}: {r['evidence']}")
        continue
    fail.append(f"positive control {r['attack']} ({r['run_profile']}): {r['verdict']}: {r['evidence']}")
hard = sum(1 for (a, p), r in runs.items() if p == "hardened" and r["verdict"] == "succeeded")
pool = sum(1 for (a, p), r in runs.items() if p == "pool-hardened" and r["verdict"] == "succeeded")
print(f"hardened: {hard} succeeded, pool-hardened: {pool} (allowed: {sorted(allowed)})")
print(f"controls: {sum(r['verdict'] == 'succeeded' for r in controls['runs'])}/{len(controls['runs'])} succeeded")
for f in fail:
    print("FAIL:", f)
sys.exit(1 if fail else 0)
PY
# Evasions of the watcher (red-team finding): attack programs that exec what they do without
# the run's nonce in their command line. The harness must still see them: 250 threads in an
# exec'd child succeed in baseline and subprocess, a double-forked daemon that execs sleep
# survives subprocess, and nothing of it stays on the host.
ev=$out/evasions
mkdir -p "$ev"
cp "$(dirname "$0")/../../attacks/"*.py "$ev/"
cat >"$ev/thread_bomb.py" <<'PY'
"""Variant: 250 threads in a child whose command line carries no nonce."""
import os
from chaoslib import start
start()
code = ("import threading, time\nts = [threading.Thread(target=time.sleep, args=(1.5,)) "
        "for _ in range(250)]\n[t.start() for t in ts]\n[t.join() for t in ts]\n")
pid = os.fork()
if pid == 0:
    os.execv("/usr/bin/python3", ["python3", "-c", code])
os.waitpid(pid, 0)
PY
cat >"$ev/orphan_survivor.py" <<'PY'
"""Variant: a double-forked daemon execs sleep, without the nonce or the marker. (One that also
leaves the session before a scan sees it escapes the subprocess column: docs/CHAOS.md.)"""
import os
from chaoslib import start
start()
if os.fork() == 0:
    if os.fork() == 0:
        os.execv("/bin/sleep", ["sleep", "37.25"])
    os._exit(0)
PY
ASB_ATTACKS_DIR=$ev "$CLI" chaos --attacks thread_bomb,orphan_survivor --profiles subprocess,baseline,hardened \
    --out "$out/evasions.json" >/dev/null || true
$PY - "$out/evasions.json" <<'PY'
import json, sys
runs = {(r["attack"], r["run_profile"]): r for r in json.load(open(sys.argv[1]))["runs"]}
want = {("thread_bomb", "subprocess"): "succeeded", ("thread_bomb", "baseline"): "succeeded",
        ("thread_bomb", "hardened"): "blocked", ("orphan_survivor", "subprocess"): "succeeded",
        ("orphan_survivor", "baseline"): "blocked", ("orphan_survivor", "hardened"): "blocked"}
bad = [f"{k}: {runs[k]['verdict']} ({runs[k]['evidence']}), want {v}" for k, v in want.items()
       if runs[k]["verdict"] != v]
for b in bad:
    print("FAIL: watcher evasion:", b)
print("watcher evasions: %d/%d verdicts as expected" % (len(want) - len(bad), len(want)))
sys.exit(1 if bad else 0)
PY
if pgrep -f 'sleep 37.25' >/dev/null; then echo "FAIL: the evading daemon survived the harness"; exit 1; fi
# Interrupted mid-matrix (TERM, as timeout(1) sends): the runs in progress remove what they
# planted, and the CLI ends as the signal would have (QA finding: canaries stayed in /root and
# /tmp, and no cleanup knew them). Killed only once something is planted, so the test interrupts
# real work.
"$CLI" chaos --profiles baseline,hardened,pool-hardened --jobs 4 >/dev/null 2>"$out/int.err" &
cpid=$!
planted=0
for _ in $(seq 100); do
    planted=$({ ls -d /root/.asb-chaos-* 2>/dev/null || true; } | wc -l)
    [ "$planted" -gt 0 ] && break
    sleep 0.1
done
kill -TERM "$cpid"
rc=0
wait "$cpid" || rc=$?
if [ "$planted" -eq 0 ]; then echo "FAIL: interrupt: nothing was planted within 10 s"; exit 1; fi
if [ "$rc" -ne 143 ] || ! grep -q "interrupted by signal 15" "$out/int.err"; then
    echo "FAIL: interrupt: exit $rc, stderr: $(cat "$out/int.err")"
    exit 1
fi
echo "interrupted with $planted run(s) planted: exit 143"
# timeout(1) sends TERM twice (the command, then its process group): still the orderly path.
timeout -s TERM 4 "$CLI" chaos --profiles baseline,hardened --jobs 4 >/dev/null 2>"$out/int2.err" || true
if ! grep -q "interrupted by signal 15" "$out/int2.err"; then
    echo "FAIL: interrupt by timeout(1): $(cat "$out/int2.err")"
    exit 1
fi
echo "interrupted by timeout(1): orderly"
# SIGKILL leaves no teardown: what was planted stays until `cleanup` (or the next chaos start)
# takes it, by the dead harness's owner tag in every name (QA finding: a killed harness's
# canaries stayed, and failed a later CI run's leftover check).
"$CLI" chaos --profiles baseline,hardened --jobs 4 >/dev/null 2>&1 &
kpid=$!
for _ in $(seq 100); do
    [ -n "$(ls -d /root/.asb-chaos-"$kpid"-* 2>/dev/null)" ] && break
    sleep 0.1
done
kill -KILL "$kpid"
wait "$kpid" 2>/dev/null || true
killed_left=$(ls -d /tmp/asb-chaos-"$kpid"-* /root/.asb-chaos-"$kpid"-* 2>/dev/null || true)
if [ -z "$killed_left" ]; then echo "FAIL: SIGKILL: nothing was planted within 10 s"; exit 1; fi
"$CLI" cleanup >"$out/cleanup.txt" 2>&1 || { echo "FAIL: cleanup: $(cat "$out/cleanup.txt")"; exit 1; }
if ! grep -q "removed chaos leftovers of dead harness $kpid" "$out/cleanup.txt"; then
    echo "FAIL: cleanup did not name the killed harness: $(cat "$out/cleanup.txt")"
    exit 1
fi
echo "SIGKILLed harness: $(echo "$killed_left" | wc -l) leftover(s), removed by cleanup"
# Nothing planted may be left behind on the host.
left=$(ls -d /tmp/asb-chaos-[0-9a-f]* /root/.asb-chaos-* /asb-chaos-* /etc/asb-chaos-* 2>/dev/null | grep -v "$out" || true)
if [ -n "$left" ]; then echo "FAIL: leftovers: $left"; exit 1; fi
echo "PASS"
