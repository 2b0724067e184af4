#!/usr/bin/env bash
# Run every built libFuzzer target for a while: bash scripts/run-fuzz.sh BUILD_DIR SECONDS
# Each target keeps its corpus in BUILD_DIR/fuzz-corpus/<name> (seeded from tests/fuzz/corpus/<name>
# when that exists) and writes crash reproducers to BUILD_DIR/fuzz-artifacts/. Exits non-zero if
# any target crashes, leaks or times out. Exits 0 with a SKIP line when clang's libFuzzer runtime
# is missing, so `make test` still works on a machine without it.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR SECONDS" >&2
  exit 2
fi
build=$1
seconds=$2
case "$seconds" in
  '' | *[!0-9]*) echo "run-fuzz: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")/.." && pwd)

targets=()
if [ -d "$build" ]; then
  mapfile -t targets < <(find "$build" -maxdepth 1 -type f -name 'fuzz_*' -perm -u+x | sort)
fi
if [ "${#targets[@]}" -eq 0 ]; then
  # No targets: fine only when this machine cannot build them (CMake then builds none).
  probe=$(mktemp -d)
  trap 'rm -rf "$probe"' EXIT
  printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' \
    >"$probe/probe.c"
  if ! command -v clang >/dev/null 2>&1; then
    echo "run-fuzz: SKIP (clang not installed; libFuzzer needs clang)"
    exit 0
  fi
  if ! clang -fsanitize=fuzzer "$probe/probe.c" -o "$probe/probe" >"$probe/log" 2>&1; then
    echo "run-fuzz: SKIP (clang's libFuzzer runtime is missing: $(grep -m1 -i error "$probe/log" || head -n1 "$probe/log"))"
    exit 0
  fi
  echo "run-fuzz: no fuzz_* binaries in $build (configure with CC=clang cmake -DASB_FUZZ=ON)" >&2
  exit 1
fi

mkdir -p "$build/fuzz-artifacts"
failed=()
for bin in "${targets[@]}"; do
  name=$(basename "$bin")
  corpus="$build/fuzz-corpus/$name"
  mkdir -p "$corpus"
  dirs=("$corpus")
  [ -d "$here/tests/fuzz/corpus/$name" ] && dirs+=("$here/tests/fuzz/corpus/$name")
  log="$build/fuzz-artifacts/$name.log"
  echo "run-fuzz: $name for ${seconds}s"
  if "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$build/fuzz-artifacts/$name-" "${dirs[@]}" >"$log" 2>&1; then
    grep -E '^stat::number_of_executed_units' "$log" | sed "s/^/run-fuzz: $name /" || true
  else
    echo "run-fuzz: $name FAILED (log: $log)" >&2
    tail -n 30 "$log" >&2
    failed+=("$name")
  fi
done

if [ "${#failed[@]}" -ne 0 ]; then
  echo "run-fuzz: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "run-fuzz: all ${#targets[@]} targets ran ${seconds}s without a crash"
