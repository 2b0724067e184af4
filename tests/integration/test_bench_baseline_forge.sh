#!/usr/bin/env bash
# test_bench_baseline_forge.sh - regression test for a forged pass found by a red-team review.
#
# In the native baseline lane the root (/usr included) is writable by root inside, and the
# grader's candidate process was root too: a candidate rewrote a stdlib codec that the grader's
# parent then imported lazily (json.loads on bytes picks utf-8-sig after a BOM) and printed the
# per-run secret from inside the parent. The candidate below computes nothing; it must be `fail`
# in both native lanes. Positive control: the honest reference passes in the same lane.
set -euo pipefail
CLI=${ASB_CLI:?} SRC=${ASB_SOURCE_DIR:?}
PY=/usr/bin/python3
if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root (native sandboxes)"; exit 0; fi
work=$(mktemp -d /tmp/asb-test-forge-XXXXXX)
trap 'rm -rf "$work"' EXIT
$PY - "$SRC/tests/integration/data/bench_codec_forge.py" "$work/sub.json" <<'PY'
import json, sys
src = open(sys.argv[1]).read()
json.dump({"starter/fizzbuzz": {"solution.py": src}}, open(sys.argv[2], "w"))
PY
fails=0
for profile in baseline hardened; do
    "$CLI" bench "$SRC/examples/bench_suites/coding_starter.json" --mode artifact_in \
        --submission "$work/sub.json" --sandbox native --profile "$profile" \
        --out "$work/forge-$profile.json" >/dev/null 2>&1 || true
    "$CLI" bench "$SRC/examples/bench_suites/coding_starter.json" --mode artifact_in \
        --reference --sandbox native --profile "$profile" \
        --out "$work/ref-$profile.json" >/dev/null 2>&1 || true
    if $PY - "$work/forge-$profile.json" "$work/ref-$profile.json" "$profile" <<'PY'
import json, sys
forge = {r["task_id"]: r for r in json.load(open(sys.argv[1]))["rows"]}
ref = {r["task_id"]: r for r in json.load(open(sys.argv[2]))["rows"]}
f = forge["starter/fizzbuzz"]
assert f["verdict"] == "fail", ("forged", f["verdict"], f.get("reason"))
assert ref["starter/fizzbuzz"]["verdict"] == "pass", ("reference", ref["starter/fizzbuzz"])
print("ok   %s: forge is %s (%s); reference passes" % (sys.argv[3], f["verdict"], f.get("reason", "")[:90]))
PY
    then :; else fails=$((fails + 1)); echo "FAIL $profile"; fi
done
[ "$fails" = 0 ] && echo PASS
