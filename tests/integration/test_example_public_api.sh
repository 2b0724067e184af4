#!/usr/bin/env bash
# test_example_public_api.sh - examples/run_untrusted.c builds as a user would build it (the
# public header and the shared library, nothing from src/) and its runs complete, attested, the
# pooled ones in prepared sandboxes.
set -euo pipefail
BUILD=${ASB_BUILD_DIR:?} SRC=${ASB_SOURCE_DIR:?}
if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root (real sandboxes)"; exit 0; fi
work=$(mktemp -d /tmp/asb-test-example-XXXXXX)
trap 'rm -rf "$work"' EXIT
cc -std=c17 -Wall -Wextra -Werror -I"$SRC/include" "$SRC/examples/run_untrusted.c" \
    -L"$BUILD" -lagentsandbox -Wl,-rpath,"$BUILD" -o "$work/run_untrusted"
"$work/run_untrusted" 'print(6 * 7)' >"$work/out"
cat "$work/out"
grep -q '^cold: \[native/hardened\] completed exit=0 .*attested yes$' "$work/out"
[ "$(grep -c '^  stdout: 42$' "$work/out")" = 4 ]
grep -q '^pooled 1: .*(prepared), attested yes$' "$work/out"
echo PASS
