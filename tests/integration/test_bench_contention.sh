#!/usr/bin/env bash
# test_bench_contention.sh - a verdict does not depend on --jobs: candidates that spin on every
# CPU they can get must not push honest neighbours past their timeout (red-team finding: two
# honest tasks failed at --jobs 5 and passed at --jobs 1). A row that timed out while others ran
# is graded again alone; the honest tasks pass either way, the spinners fail either way.
set -euo pipefail
CLI=${ASB_CLI:?}
PY=/usr/bin/python3
if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root (native sandboxes)"; exit 0; fi
work=$(mktemp -d /tmp/asb-test-contention-XXXXXX)
trap 'rm -rf "$work"' EXIT
$PY - "$work" <<'PY'
import json, sys
d = sys.argv[1]
test = "def check(candidate):\n    assert candidate(6000000) == sum(range(6000000))\n"
honest = "def f(n):\n    s = 0\n    for i in range(n):\n        s += i\n    return s\n"
spin = ("import os, time\nfor _ in range(3):\n    if os.fork() == 0:\n        break\n"
        "t = time.time()\nwhile time.time() - t < 6:\n    pass\n")
tasks, sub = [], {}
for i in range(6):
    tasks.append({"id": "spin%d" % i, "prompt": "x", "entry_file": "solution.py",
                  "entry_point": "f", "reference": {"solution.py": honest},
                  "oracle": {"kind": "python_check", "test": test}, "limits": {"timeout_s": 10}})
    sub["spin%d" % i] = spin
# slow on its own: spins past its timeout with the CPU to itself, so it fails again when alone
tasks.append({"id": "slow_alone", "prompt": "x", "entry_file": "solution.py", "entry_point": "f",
              "reference": {"solution.py": honest},
              "oracle": {"kind": "python_check", "test": test}, "limits": {"timeout_s": 2}})
sub["slow_alone"] = ("import time\nt = time.time()\nwhile time.time() - t < 5:\n    pass\n" + honest)
for i in range(2):
    tasks.append({"id": "honest%d" % i, "prompt": "x", "entry_file": "solution.py",
                  "entry_point": "f", "reference": {"solution.py": honest},
                  "oracle": {"kind": "python_check", "test": test}, "limits": {"timeout_s": 1.6}})
    sub["honest%d" % i] = honest
json.dump({"format": "agent-sandbox.bench-suite/1", "name": "contention", "tasks": tasks},
          open(d + "/suite.json", "w"))
json.dump(sub, open(d + "/sub.json", "w"))
PY
"$CLI" bench "$work/suite.json" --submission "$work/sub.json" --sandbox native \
    --profile hardened --jobs 8 --out "$work/out.json" 2>"$work/err" || {
    echo "FAIL: bench exited $?: $(cat "$work/err")"
    exit 1
}
$PY - "$work/out.json" <<'PY'
import json, sys
rows = {r["task_id"]: r for r in json.load(open(sys.argv[1]))["rows"]}
for t in ("honest0", "honest1"):
    r = rows[t]
    assert r["verdict"] == "pass", (t, r["verdict"], r["reason"], r.get("first_reason"))
    # the row says what it rested on: the task's own timeout, hardened's memory and pids
    lim = r["grader"]["limits"]
    assert lim["timeout_s"] == 1.6 and lim["memory_bytes"] == 128 << 20 and lim["pids"] == 64, lim
    print("ok   %s passes beside six spinners at --jobs 8%s" % (
        t, " (graded again alone after: %s)" % r["first_reason"] if r.get("regraded_alone") else ""))
for t in ["spin%d" % i for i in range(6)]:
    assert rows[t]["verdict"] == "fail", (t, rows[t]["verdict"], rows[t]["reason"])
    # a row that did not time out beside others is never graded twice
    if rows[t].get("regraded_alone"):
        assert "timeout" in rows[t]["first_reason"], rows[t]
print("ok   the spinners fail")
r = rows["slow_alone"]
assert r["verdict"] == "fail" and "timeout" in r["reason"], r
print("ok   a candidate too slow on its own fails%s" % (
    " (graded again alone after: %s)" % r["first_reason"] if r.get("regraded_alone") else ""))
PY

# 2. Which rows are graded again: sixteen candidates that sleep (timed out waiting, with no CPU
# to speak of) came first in index order and used up the sixteen regrades, so an honest,
# CPU-heavy row that busy neighbours starved afterwards failed at --jobs 5 and passed at
# --jobs 1 (QA finding). Rows that waited are not graded again; the rest go most-CPU first.
$PY - "$work" <<'PY'
import json, sys
d = sys.argv[1]
test = "def check(candidate):\n    assert candidate(%d) == sum(range(%d))\n"
honest = "def f(n):\n    s = 0\n    for i in range(n):\n        s += i\n    return s\n"
sleep = "import time\ntime.sleep(60)\n" + honest
busy = "import time\nt = time.time()\nwhile time.time() - t < 6:\n    pass\n" + honest
tasks, sub = [], {}
def task(tid, timeout, code, n):
    tasks.append({"id": tid, "prompt": "x", "entry_file": "solution.py", "entry_point": "f",
                  "reference": {"solution.py": honest},
                  "oracle": {"kind": "python_check", "test": test % (n, n)},
                  "limits": {"timeout_s": timeout}})
    sub[tid] = code
for i in range(17):
    task("sleep%02d" % i, 1.2, sleep, 10)
for i in range(4):  # slow but correct: they pass, and take the CPUs while "heavy" runs
    task("busy%d" % i, 40, busy, 10)
task("heavy", 3.5, honest, 40000000)  # ~2 s of CPU alone, 2.5 times that beside busy rows
json.dump({"format": "agent-sandbox.bench-suite/1", "name": "order", "tasks": tasks},
          open(d + "/suite2.json", "w"))
json.dump(sub, open(d + "/sub2.json", "w"))
PY
"$CLI" bench "$work/suite2.json" --submission "$work/sub2.json" --sandbox native \
    --profile hardened --jobs 5 --out "$work/out2.json" 2>"$work/err" || {
    echo "FAIL: bench exited $?: $(cat "$work/err")"
    exit 1
}
$PY - "$work/out2.json" <<'PY'
import json, sys
rows = {r["task_id"]: r for r in json.load(open(sys.argv[1]))["rows"]}
r = rows["heavy"]
assert r["verdict"] == "pass", (r["verdict"], r["reason"], r.get("first_reason"))
if r.get("regraded_alone"):
    print("ok   the CPU-heavy honest row passes after sixteen sleepers at --jobs 5 (graded again "
          "alone after: %s)" % r["first_reason"])
else:
    print("ok   the CPU-heavy honest row passes (note: it did not time out beside the busy rows "
          "here, so the order of regrades was not exercised)")
for t in ["sleep%02d" % i for i in range(17)]:
    r = rows[t]
    assert r["verdict"] == "fail" and not r.get("regraded_alone"), (t, r)
    assert "waiting" in r["reason"], (t, r["reason"])
print("ok   the sleepers fail, and are not graded again: %s" % rows["sleep00"]["reason"])
for t in ["busy%d" % i for i in range(4)]:
    assert rows[t]["verdict"] == "pass", (t, rows[t]["verdict"], rows[t]["reason"])
print("ok   the busy rows pass")
PY
# 3. The subprocess lane, same suite: its CPU time is what wait4 saw, and after a timeout the
# grader driver's candidate process (a grandchild, left to init by the kill) is not in it, so a
# starved honest row read as one that waited and was never graded again: it failed at --jobs 8
# and passed at --jobs 1 (QA finding). Such rows are graded again like any other now.
"$CLI" bench "$work/suite.json" --submission "$work/sub.json" --sandbox subprocess \
    --jobs 8 --out "$work/out3.json" 2>"$work/err" || {
    echo "FAIL: bench (subprocess lane) exited $?: $(cat "$work/err")"
    exit 1
}
$PY - "$work/out3.json" <<'PY'
import json, sys
rows = {r["task_id"]: r for r in json.load(open(sys.argv[1]))["rows"]}
for t in ("honest0", "honest1"):
    r = rows[t]
    assert r["verdict"] == "pass", (t, r["verdict"], r["reason"], r.get("first_reason"))
    print("ok   subprocess lane: %s passes beside six spinners at --jobs 8%s" % (
        t, " (graded again alone after: %s)" % r["first_reason"] if r.get("regraded_alone") else ""))
for t in ["spin%d" % i for i in range(6)]:
    assert rows[t]["verdict"] == "fail", (t, rows[t]["verdict"], rows[t]["reason"])
print("ok   subprocess lane: the spinners fail")
PY
echo PASS
