#!/usr/bin/env bash
# test_chaos_docker.sh - the chaos matrix's docker columns once (docker-baseline, docker-hardened).
# Skips with a reason when no engine answers; with ASB_REQUIRE_DOCKER=1 (CI) that is a failure.
# Fails when: any attack outside {mountinfo_leak, disk_read_flood} succeeds under
# docker-hardened; any verdict is `error` twice in a row (one re-run of just the errored
# attacks, as in test_chaos.sh); docker-hardened's egress evidence does not name the bridge
# listener (a `blocked` with nothing reachable would mean nothing); docker-baseline, which is on
# the bridge by design, fails to reach that listener (the positive control of the docker
# egress path); a container or planted file is left behind.
set -euo pipefail
. "$(dirname "$0")/docker_engine.sh"
PY=/usr/bin/python3
if [ "$(id -u)" != 0 ]; then skip "needs root (host canary in /root, /proc of every process)"; fi
need_engine
need_image

out=$(mktemp -d /tmp/asb-chaos-test-XXXXXX)
trap 'rm -rf "$out"' EXIT
cols=docker-baseline,docker-hardened

start=$(date +%s.%N)
"$CLI" chaos --profiles "$cols" --jobs 6 --out "$out/matrix.json" >"$out/matrix.txt" || true
end=$(date +%s.%N)
tail -4 "$out/matrix.txt"
echo "docker columns wall time: $($PY -c "print(round($end-$start,1))") s"

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
    "$CLI" chaos --profiles "$cols" --attacks "$retry" --out "$out/retry.json" >/dev/null || true
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

$PY - "$out/matrix.json" "${retry:+$out/retry.json}" <<'PY'
import json, sys
matrix = json.load(open(sys.argv[1]))
retry = json.load(open(sys.argv[2])) if len(sys.argv) > 2 and sys.argv[2] else None
# disk_read_flood: the docker backend sets no disk read limit (SPEC; session 20).
# (tcp_backlog_hold was allowed until session 22: the host now takes lo down, docker_netns.c.)
allowed = {"mountinfo_leak", "disk_read_flood"}
egress = ["tcp_egress", "udp_egress", "http_egress", "dns_resolve", "raw_socket"]
runs = {(r["attack"], r["profile"]): r for r in matrix["runs"]}
if retry:
    for r in retry["runs"]:
        old = runs.get((r["attack"], r["profile"]))
        if old and old["verdict"] == "error":
            runs[(r["attack"], r["profile"])] = r
fail = []
assert len(matrix["attacks"]) >= 30, "fewer than 30 attacks"
for (attack, profile), r in sorted(runs.items()):
    if r["backend"] != "docker":
        fail.append(f"{attack}/{profile}: ran on backend {r['backend']}, not docker")
    if r["verdict"] == "error":
        fail.append(f"{attack}/{profile}: error: {r['evidence']}")
    if profile == "docker-hardened" and r["verdict"] == "succeeded" and attack not in allowed:
        fail.append(f"DOCKER-HARDENED FINDING: {attack} succeeded: {r['evidence']}")
for attack in egress:
    h = runs[(attack, "docker-hardened")]
    if h["verdict"] == "blocked" and "docker bridge address" not in h["evidence"]:
        fail.append(f"{attack}/docker-hardened: blocked without a bridge listener: {h['evidence']}")
b = runs[("tcp_egress", "docker-baseline")]
if b["verdict"] != "succeeded" or "bridge" not in b["evidence"]:
    fail.append(f"tcp_egress/docker-baseline (bridge network): {b['verdict']}: {b['evidence']}")
hard = sorted(a for (a, p), r in runs.items() if p == "docker-hardened" and r["verdict"] == "succeeded")
base = sum(1 for (a, p), r in runs.items() if p == "docker-baseline" and r["verdict"] == "succeeded")
print(f"docker-hardened: {len(hard)} succeeded {hard} (allowed: {sorted(allowed)})")
print(f"docker-baseline: {base} succeeded")
for f in fail:
    print("FAIL:", f)
sys.exit(1 if fail else 0)
PY
left=$(ls -d /tmp/asb-chaos-[0-9a-f]* /root/.asb-chaos-* /asb-chaos-* /etc/asb-chaos-* 2>/dev/null || true)
if [ -n "$left" ]; then echo "FAIL: leftovers: $left"; exit 1; fi
containers=$(curl -fsS --max-time 5 --unix-socket "$SOCK" \
    'http://docker/containers/json?all=1&filters=%7B%22label%22%3A%5B%22org.agent-sandbox.owner%22%5D%7D' |
    $PY -c 'import json,sys; print(len(json.load(sys.stdin)))')
if [ "$containers" != 0 ]; then echo "FAIL: $containers agent-sandbox container(s) left"; exit 1; fi
echo "PASS"
