#!/usr/bin/env bash
# test_bench_sandboxes.sh - examples/bench_sandboxes writes artifacts/bench-sandboxes.json with
# the subprocess lane scored and the docker lane audited without launching a container.
set -euo pipefail
BUILD=${ASB_BUILD_DIR:?} SRC=${ASB_SOURCE_DIR:?}
work=$(mktemp -d /tmp/asb-test-bench-sandboxes-XXXXXX)
trap 'rm -rf "$work"' EXIT
(cd "$work" && "$BUILD/examples/bench_sandboxes" "$SRC/examples/bench_suites/coding_starter.json")
/usr/bin/python3 - "$work/artifacts/bench-sandboxes.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
sub, dock = a["subprocess_lane"], a["docker_lane"]
agg = sub["aggregate"]
assert agg["count"] == 3 and agg["scored"] == 3 and agg["passed"] == 3, agg
assert agg["pass_rate"] == 1.0, agg
assert len(sub["rows"]) == 3 and all(r["verdict"] == "pass" for r in sub["rows"])
assert all(r["grader"]["backend"] == "subprocess" for r in sub["rows"])
assert all(r["grader"]["limits"]["timeout_s"] > 0 for r in sub["rows"]), sub["rows"][0]["grader"]
assert sub["honesty"]["unsafe_lane"] is True
assert sub["honesty"]["oracle_hidden"] is False  # the candidate can read the suite there
assert isinstance(dock["docker_available"], bool)
assert dock["launched_container"] is False
for k in ("image", "memory", "cpus", "pids_limit", "hardened_argv", "isolation_flags",
          "all_hardening_present"):
    assert k in dock, k
# Nothing about the docker request is invented: what the builder must supply is pending.
for k in dock["pending"]:
    assert dock[k] is None, (k, dock[k])
# The pure builder supplies the hardened request: nothing pending, every isolation flag present.
assert dock["pending"] == [], dock["pending"]
assert dock["all_hardening_present"] is True
assert "--network none" in dock["isolation_flags"], dock["isolation_flags"]
assert "--read-only" in dock["isolation_flags"] and "--cap-drop ALL" in dock["isolation_flags"]
assert dock["hardened_argv"][:3] == ["docker", "run", "--rm"], dock["hardened_argv"]
assert dock["memory"] == 128 * 1024 * 1024 and dock["pids_limit"] == 64 and dock["cpus"] == 1.0
assert all(dock["isolation"].values()), dock["isolation"]
print("bench-sandboxes.json ok: docker_available=%s" % dock["docker_available"])
PY
echo PASS
