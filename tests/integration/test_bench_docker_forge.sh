#!/usr/bin/env bash
# test_bench_docker_forge.sh - regression test for a forged pass in the docker baseline lane
# (red-team finding). There the grader runs as the container's own root (no user namespace),
# with a writable /usr; its candidate process stayed root, appended a payload to the stdlib's
# string.py, and the oracle's lazy `import string` ran it in the trusted parent, which then
# printed the per-run secret. The candidate (data/bench_lazy_import_forge.py) computes nothing:
# it must be `fail` in both docker lanes. Controls: the lane's premise holds (a program in
# docker baseline is root and can write string.py), and the honest reference passes.
set -euo pipefail
. "$(dirname "$0")/docker_engine.sh"
SRC=${ASB_SOURCE_DIR:?}
PY=/usr/bin/python3
need_engine
need_image
work=$(mktemp -d /tmp/asb-test-dforge-XXXXXX)
trap 'rm -rf "$work"' EXIT
suite=$SRC/tests/integration/data/bench_lazy_import_suite.json
$PY - "$SRC/tests/integration/data/bench_lazy_import_forge.py" "$work/sub.json" <<'PY'
import json, sys
json.dump({"forge/lazy_import": {"solution.py": open(sys.argv[1]).read()}}, open(sys.argv[2], "w"))
PY
premise=$("$CLI" run --backend docker --profile baseline -- /usr/bin/python3 -c \
    'import os, string; print(os.geteuid(), os.access(string.__file__, os.W_OK))' 2>&1) || true
echo "docker baseline premise (euid, string.py writable): $premise"
case "$premise" in *"0 True"*) ;; *) echo "note: the lane's premise does not hold here; the test still checks the verdicts" ;; esac
fails=0
for profile in baseline hardened; do
    "$CLI" bench "$suite" --mode artifact_in --submission "$work/sub.json" --sandbox docker \
        --profile "$profile" --out "$work/forge-$profile.json" >/dev/null 2>&1 || true
    "$CLI" bench "$suite" --mode artifact_in --reference --sandbox docker --profile "$profile" \
        --out "$work/ref-$profile.json" >/dev/null 2>&1 || true
    if $PY - "$work/forge-$profile.json" "$work/ref-$profile.json" "$profile" <<'PY'
import json, sys
forge = json.load(open(sys.argv[1]))["rows"][0]
ref = json.load(open(sys.argv[2]))["rows"][0]
assert ref["verdict"] == "pass", ("reference", ref["verdict"], ref.get("reason"))
assert forge["verdict"] == "fail", ("forged", forge["verdict"], forge.get("reason"))
print("ok   docker %s: forge is %s (%s); reference passes"
      % (sys.argv[3], forge["verdict"], (forge.get("reason") or "")[:90]))
PY
    then :; else fails=$((fails + 1)); echo "FAIL docker $profile"; fi
done
[ "$fails" = 0 ] && echo PASS
