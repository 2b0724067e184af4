#!/usr/bin/env bash
# `agent-sandbox latency` for real, kept short (5 rounds, subprocess vs hardened): the JSON record
# must be complete and consistent with itself (orders are permutations, medians inside [min, max],
# the Hodges-Lehmann estimate recomputed from the recorded runs, one pair), the SVG must parse,
# the same seed must replay the same order, and failing runs must be reported, not dropped.
set -euo pipefail
src="${ASB_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
build="${ASB_BUILD_DIR:-$src/build}"
cli="${ASB_CLI:-$build/agent-sandbox}"
py=/usr/bin/python3 # the system python: the checks need nothing beyond its standard library

if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: latency integration test because it runs hardened sandboxes and needs root"
    exit 0
fi
if [ ! -x "$py" ]; then
    echo "FAIL: $py is missing; the sandboxes run it too" >&2
    exit 1
fi
work="$(mktemp -d /tmp/test_latency.XXXXXX)"
trap 'rm -rf "$work"' EXIT

"$cli" latency --rounds 5 --warmup 1 --profiles subprocess,hardened --seed 4242 \
    --out "$work/a/latency.json" --plot "$work/a/latency.svg" >"$work/stdout" 2>"$work/stderr" || {
    echo "FAIL: latency exited $?" >&2
    cat "$work/stdout" "$work/stderr" >&2
    exit 1
}
cat "$work/stdout"

"$py" - "$work/a/latency.json" "$work/a/latency.svg" "$work/stdout" <<'EOF'
import json, statistics, sys, xml.etree.ElementTree as ET

j = json.load(open(sys.argv[1]))
stdout = open(sys.argv[3]).read()
fails = []
checks = [0]
def check(cond, what):
    checks[0] += 1
    if not cond:
        fails.append(what)

check(j["schema"] == "agent-sandbox/latency/1", "schema")
check(j["seed"] == 4242, "seed recorded")
check(j["argv"] == ["/usr/bin/python3", "-c", "pass"], "argv")
check(j["rounds_requested"] == 5 and j["rounds_done"] == 5, "round counts")
check(j["rounds_complete"] == 5 and j["runs_failed"] == 0 and j["rounds_excluded"] == 0,
      "no failures")
check(j["analyzed"] is True and j["ablation"] is False, "flags")
check(j["reference"] == "subprocess", "reference")
for k in ("hostname", "kernel", "cpus_online", "started_at", "finished_at", "load1_start"):
    check(k in j["host"], "host." + k)
arms = [a["name"] for a in j["arms"]]
check(arms == ["subprocess", "hardened"], "arms %r" % arms)
check(len(j["rounds"]) == 5, "5 rounds recorded")

wall = {a: [] for a in arms}
for r in j["rounds"]:
    check(sorted(r["order"]) == sorted(arms), "order is a permutation")
    check(r["complete"] is True, "round complete")
    check([x["arm"] for x in r["runs"]] == r["order"], "runs listed in run order")
    for pos, run in enumerate(r["runs"]):
        check(run["position"] == pos, "position")
        check(run["status"] == "completed" and run["exit_code"] == 0 and run["error"] is None,
              "run ok: %r" % run)
        check(0 < run["duration_ms"] <= run["wall_ms"] + 1.0,
              "0 < duration %.3f <= wall %.3f (+1 ms)" % (run["duration_ms"], run["wall_ms"]))
        wall[run["arm"]].append(run["wall_ms"])

for a in j["arms"]:
    w = a["wall_ms"]
    check(w["n"] == 5, "n per arm")
    check(w["min"] <= w["median"] <= w["max"], "median inside [min, max] for " + a["name"])
    check(w["median"] <= w["p90"] <= w["max"], "p90 inside [median, max] for " + a["name"])
    check(abs(w["median"] - statistics.median(wall[a["name"]])) < 1e-9, "median recomputed")
    check(a["reference"] == (a["name"] == "subprocess"), "reference flag")
    check(a["failed"] == 0, "failed count")

check(len(j["pairs"]) == 1, "one pair")
p = j["pairs"][0]
check(p["minuend"] == "hardened" and p["subtrahend"] == "subprocess", "pair direction")
d = [h - s for h, s in zip(wall["hardened"], wall["subprocess"])]
walsh = sorted((d[i] + d[k]) / 2 for i in range(5) for k in range(i, 5))
hl = p["hodges_lehmann"]
check(abs(hl["estimate"] - statistics.median(walsh)) < 1e-9, "HL recomputed from the runs")
check(hl["ci_low"] <= hl["estimate"] <= hl["ci_high"], "estimate inside its CI")
# n = 5: even [min d, max d] covers only 93.75%, and the verdict must say so.
check(abs(hl["conf_achieved"] - 0.9375) < 1e-12, "achieved level at n = 5")
check("93.8% CI" in p["verdict"], "verdict shows the achieved level")
check(0 <= p["wilcoxon"]["p_value"] <= 1 and 0 <= p["sign_test"]["p_value"] <= 1, "p-values")
check(p["mde"]["wilcoxon"] > 0, "MDE")
check(p["verdict"].startswith("hardened - subprocess: "), "verdict wording")
check(p["verdict"] in stdout, "verdict printed")

root = ET.parse(sys.argv[2]).getroot()
check(root.tag == "{http://www.w3.org/2000/svg}svg", "svg root")
circles = len(list(root.iter("{http://www.w3.org/2000/svg}circle")))
check(circles == 5 * 2 + 1, "one dot per run plus one estimate, got %d" % circles)

if fails:
    print("FAIL: " + "; ".join(fails), file=sys.stderr)
    sys.exit(1)
print("PASS: latency JSON consistent (%d checks), SVG parses" % checks[0])
EOF

# The same seed replays the same round order.
"$cli" latency --rounds 5 --warmup 0 --profiles subprocess,hardened --seed 4242 \
    --out "$work/b.json" >/dev/null 2>&1
"$py" -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
oa, ob = ([r["order"] for r in x["rounds"]] for x in (a, b))
assert oa == ob, (oa, ob)
print("PASS: seed 4242 replays the order", oa)' "$work/a/latency.json" "$work/b.json"

# Failing runs are reported: a failing warm-up stops the study (125); with no warm-up every
# measured run fails, is recorded, and the command exits 1 without statistics.
set +e
"$cli" latency --rounds 2 --profiles subprocess,hardened --code 'import sys; sys.exit(3)' \
    --out "$work/c.json" >"$work/c.out" 2>"$work/c.err"
rc=$?
set -e
if [ "$rc" -ne 125 ] || ! grep -q "warm-up run of .* failed: exit code 3" "$work/c.err"; then
    echo "FAIL: failing warm-up: exit $rc, stderr: $(cat "$work/c.err")" >&2
    exit 1
fi
set +e
"$cli" latency --rounds 2 --warmup 0 --profiles subprocess,hardened \
    --code 'import sys; sys.exit(3)' --out "$work/d.json" >"$work/d.out" 2>"$work/d.err"
rc=$?
set -e
if [ "$rc" -ne 1 ] || ! grep -q "4 of 4 runs failed" "$work/d.err"; then
    echo "FAIL: failing runs: exit $rc, stderr: $(cat "$work/d.err")" >&2
    exit 1
fi
"$py" -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["runs_failed"] == 4 and j["analyzed"] is False and j["pairs"] == [], j
runs = [x for r in j["rounds"] for x in r["runs"]]
assert len(runs) == 4 and all(x["exit_code"] == 3 and x["error"] == "exit code 3" for x in runs)
print("PASS: 4 failed runs recorded and reported, exit status 1")' "$work/d.json"
echo "PASS: test_latency"
