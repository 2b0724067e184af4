#!/usr/bin/env bash
# test_traceme.sh - a program that makes PID 1 its tracer (PTRACE_TRACEME, which baseline's
# Docker-like filter allows) stops for its tracer at its next signal or exec, and only the
# tracer's wait sees that stop. The supervisor took it for the workload's end: the run came back
# as a sandbox_error ("exit report disagrees with the supervisor's exit status", exit 125)
# although nothing of the sandbox failed, so a program could make its own run look like an
# infrastructure failure (red team 24). The supervisor is no debugger: the program must go on as
# if untraced, and the verdict must be its own:
#  - it sends itself SIGUSR1: killed by signal 10, as untraced;
#  - it execs /bin/true (a traced exec stops with a SIGTRAP an untraced one never gets): exit 0.
# hardened refuses the trace (EPERM): the same verdicts. Needs root (real sandboxes).
set -u
CLI=${ASB_CLI:-$(dirname "$0")/../../build/agent-sandbox}
if [[ $(id -u) != 0 ]]; then
    echo "SKIP: tracing tests run real sandboxes and need root"
    exit 0
fi
fails=0
TRACEME='import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
r = libc.ptrace(0, 0, None, None)  # PTRACE_TRACEME
sys.stderr.write("traceme %d\n" % r); sys.stderr.flush()
'
verdict() { # PROFILE PROGRAM -> "status exit signal"
    "$CLI" run --json --profile "$1" --timeout 5 -- /usr/bin/python3 -c "$2" </dev/null |
        /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["status"], d["exit_code"], d["signal"], d.get("error") or "")'
}
for profile in baseline hardened; do
    got=$(verdict "$profile" "${TRACEME}os.kill(os.getpid(), signal.SIGUSR1)
sys.exit(5)")
    if [[ $got == "killed None 10 "* ]]; then
        echo "ok   $profile: traced, then SIGUSR1: $got"
    else
        echo "FAIL $profile: traced, then SIGUSR1: '$got', want killed by signal 10"
        fails=$((fails + 1))
    fi
    got=$(verdict "$profile" "${TRACEME}os.execv('/bin/true', ['true'])")
    if [[ $got == "completed 0 0 "* ]]; then
        echo "ok   $profile: traced, then exec: $got"
    else
        echo "FAIL $profile: traced, then exec /bin/true: '$got', want completed 0"
        fails=$((fails + 1))
    fi
done
echo "$fails failure(s)"
[[ $fails == 0 ]]
