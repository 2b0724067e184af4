#!/usr/bin/env bash
# make bench: every benchmark in bench/, each reporting ratios against a baseline of the same run.
set -euo pipefail
BUILD=${1:-build}
echo "== latency_floor"
"$BUILD/latency_floor" "${ASB_BENCH_ROUNDS:-30}"
for b in "$BUILD"/bench_*; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b"
done
