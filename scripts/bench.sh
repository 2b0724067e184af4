#!/usr/bin/env bash
# make bench: every benchmark in bench/, each reporting ratios against a baseline of the same run.
set -euo pipefail
BUILD=${1:-build}
# What the numbers were taken on: a busy host, or a VM in its first minutes (docs/PERFORMANCE.md,
# session 14), gives figures that are not the sandbox's. Printed, never hidden.
read -r l1 l5 l15 _ </proc/loadavg
up=$(awk '{printf "%d", $1 / 60}' /proc/uptime)
echo "host: $(nproc) CPUs, load $l1 $l5 $l15, up $up min"
if awk -v l="$l1" 'BEGIN { exit !(l >= 1.0) }' || [ "$up" -lt 5 ]; then
  echo "bench: note: the host is busy or just booted; these numbers are disturbed (docs/PERFORMANCE.md)"
fi
echo "== latency_floor"
"$BUILD/latency_floor" "${ASB_BENCH_ROUNDS:-30}"
for b in "$BUILD"/bench_*; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b"
done
