#!/usr/bin/env bash
# The statistics reference must still be what scipy says: regenerate tests/stats/reference.json
# with /usr/bin/python3 + scipy (Debian python3-scipy; the python3 on PATH may lack it) and compare
# it with the committed file. Without scipy this skips, unless CI is set: there it must exist.
set -euo pipefail
src="${ASB_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
out_dir="${ASB_BUILD_DIR:-${TMPDIR:-/tmp}}"
py="${ASB_SCIPY_PYTHON:-/usr/bin/python3}" # override only to test the skip path

if ! "$py" -c 'import scipy.stats, numpy' 2>/dev/null; then
    why="$py cannot import scipy.stats and numpy (install python3-scipy: scripts/bootstrap.sh)"
    if [ -n "${CI:-}" ]; then
        echo "FAIL: $why, and CI is set" >&2
        exit 1
    fi
    echo "SKIP: scipy reference check because $why"
    exit 0
fi

regenerated="$out_dir/stats-reference.regenerated.json"
"$py" -W ignore "$src/tests/stats/reference.py" --out "$regenerated" \
    --check "$src/tests/stats/reference.json"
echo "PASS: $src/tests/stats/reference.json matches scipy (regenerated: $regenerated)"
