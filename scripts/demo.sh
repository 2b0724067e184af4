#!/usr/bin/env bash
# make demo: untrusted Python under the hardened profile, then the evidence of what was enforced.
set -euo pipefail
BUILD=${1:-build}
ASB="$BUILD/agent-sandbox"

echo "== 1. preflight: this host's kernel features and one attested hardened run"
"$ASB" preflight
echo
echo "== 2. untrusted Python under the hardened profile (stdin '1 2 3 4 5' summed)"
echo "1 2 3 4 5" | "$ASB" run --profile hardened --code 'import sys; print(sum(map(int, sys.stdin.read().split())))'
echo
echo "== 3. the same sandbox refuses what untrusted code tries"
"$ASB" run --profile hardened --code '
import os, socket
def attempt(what, fn):
    try:
        fn(); print(f"{what:34s} ALLOWED")
    except Exception as e:
        print(f"{what:34s} blocked: {type(e).__name__}: {e}")
attempt("read /etc/shadow", lambda: open("/etc/shadow").read())
attempt("list /root", lambda: os.listdir("/root"))
attempt("write /usr/bin/x", lambda: open("/usr/bin/x", "w"))
attempt("connect 1.1.1.1:53", lambda: socket.create_connection(("1.1.1.1", 53), timeout=1))
attempt("os.setuid(0)", lambda: os.setuid(0))
attempt("exec a file written at run time", lambda: (open("x.sh","w").write("#!/bin/sh\necho hi\n"), os.chmod("x.sh", 0o755), os.execv("./x.sh", ["x.sh"])))
print("uid", os.getuid(), "| hostname", os.uname().nodename, "| pids visible", len([p for p in os.listdir("/proc") if p.isdigit()]))
' || true
echo
echo "== 4. the result record: what was enforced, attested from inside before the code ran"
"$ASB" run --profile hardened --json --code 'print("hello from the sandbox")' |
  /usr/bin/python3 -c 'import json,sys; r=json.load(sys.stdin); a=r["attestation"]
print("status:", r["status"], "| exit:", r["exit_code"], "| %.1f ms" % (r["duration_s"]*1e3))
print("stdout:", repr(r["stdout"]))
for k in ("valid","uid","gid","cap_eff","cap_bnd","no_new_privs","seccomp_mode","landlock_enforced","net_ifaces","root_readonly","hostname"):
    print("  attestation.%-18s %s" % (k, a[k]))
print("  limits:", {k: r["limits"]["enforced"][k] for k in ("timeout_s","memory_bytes","pids","cpus","output_bytes")})'
echo
echo "== 5. budgets: a 300 MB allocation under the 128 MiB limit, and a sleeper past its timeout"
"$ASB" run --profile hardened --code 'b = bytearray(300 * 1024 * 1024); print("allocated")' || echo "(exit status $?: OOM from the cgroup's own counter)"
"$ASB" run --profile hardened --timeout 1 --code 'import time; time.sleep(30)' || echo "(exit status $?: timeout)"
