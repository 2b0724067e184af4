#!/usr/bin/env python3
"""A signal that ends `agent-sandbox run` (native backend) ends its run first (test_cli.sh).

Judged from the outside only, as a subreaper: anything of the run that outlives the CLI, even a
zombie, is handed to us and seen. For TERM, INT and HUP, a hardened run whose program ignores
all three and leaves grandchildren behind:
  - the CLI dies of that signal (not an exit code: a shell loop must stop at ^C);
  - its supervisor has exited by the time the CLI has (its pidfd is readable at once), which is
    after every process of its pid namespace;
  - nothing of the run's pid namespace exists any more, and nothing was handed to us;
  - nothing of it is left on the host either: no cgroup named for the CLI, and the host id
    slot file it held is gone (a handler that killed the supervisor and ended the CLI at once
    left both for the next run to reap).
A signal the caller ignores, or blocks, stays so: the run completes.

Usage: cli_signals.py CLI. Prints one "ok"/"FAIL" line per case; exit 1 on any failure."""
import ctypes
import glob
import os
import select
import signal
import subprocess
import sys
import time

CLI = sys.argv[1]
# TERM, INT, HUP, and (since session 19, QA finding: they left the run behind) the other
# signals from outside whose default action ends the CLI.
# SIGIO and the real-time signals too (review finding, session 20: they left the run behind).
WATCHED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1, signal.SIGALRM,
           signal.SIGXCPU, signal.SIGPWR, signal.SIGIO, signal.SIGRTMIN, signal.SIGRTMAX)
RESIST = """import os,signal,time
for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1, signal.SIGALRM,
          signal.SIGXCPU, signal.SIGPWR, signal.SIGIO, signal.SIGRTMIN, signal.SIGRTMAX):
    signal.signal(s, signal.SIG_IGN)
for i in range(3):
    if os.fork() == 0:
        if os.fork() == 0:
            time.sleep(60)
        os._exit(0)
time.sleep(60)"""

libc = ctypes.CDLL(None, use_errno=True)
PR_SET_CHILD_SUBREAPER = 36
if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    print("FAIL cannot become a subreaper")
    sys.exit(1)
# Whatever the test runner left us (a background job ignores SIGINT): defaults, unblocked.
for s in WATCHED:
    signal.signal(s, signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_UNBLOCK, WATCHED)


def children_of(ppid):
    """Our own /proc scan (no /proc/PID/task/TID/children: not every kernel has it)."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == ppid:
            found.append(int(d))
    return found


def members(ns):
    n = 0
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                n += os.readlink(f"/proc/{d}/ns/pid") == ns
            except OSError:
                pass
    return n


def start(code, setup=None):
    """The CLI on `code`, and its supervisor's pid and pid namespace once the run has at least
    five processes (supervisor, program, three grandchildren) or the program is running."""
    p = subprocess.Popen([CLI, "run", "--timeout", "30", "--code", code],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, preexec_fn=setup)
    want = 5 if code == RESIST else 2
    deadline = time.time() + 20
    while time.time() < deadline:
        kids = children_of(p.pid)
        if kids:
            try:
                ns = os.readlink(f"/proc/{kids[0]}/ns/pid")
            except OSError:
                ns = None
            if ns and ns != os.readlink("/proc/self/ns/pid") and members(ns) >= want:
                return p, kids[0], ns
        time.sleep(0.05)
    p.kill()
    p.wait()
    return p, None, None


def cgroups_of(pid):
    """The run's cgroup directories: named asb-PID-START-RUNID in every hierarchy (v1: one per
    controller; v2: one)."""
    found = []
    for top in glob.glob("/sys/fs/cgroup/*/agent-sandbox") + ["/sys/fs/cgroup/agent-sandbox"]:
        found += glob.glob(f"{top}/asb-{pid}-*")
    return found


def slot_of(pid):
    """The host id slot file the CLI holds open (path, inode), or None."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return None
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            if target.startswith("/run/agent-sandbox/idslots/"):
                return target, os.stat(target).st_ino
        except OSError:
            pass
    return None


def slot_left(slot):
    if slot is None:
        return False
    try:
        return os.stat(slot[0]).st_ino == slot[1]
    except FileNotFoundError:
        return False


def handed_to_us():
    try:
        r = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return None
    return r.si_pid if r else None


fails = 0


def report(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += not ok


def signame(sig):
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"


for sig in WATCHED:
    name = signame(sig)
    p, sup, ns = start(RESIST)
    if sup is None:
        report(False, f"{name}: the run never got going")
        continue
    before = members(ns)
    cgs, slot = cgroups_of(p.pid), slot_of(p.pid)
    pfd = os.pidfd_open(sup)
    t0 = time.monotonic()
    os.kill(p.pid, sig)
    _, status = os.waitpid(p.pid, 0)
    ms = (time.monotonic() - t0) * 1e3
    sup_gone = bool(select.select([pfd], [], [], 0)[0])
    os.close(pfd)
    after = members(ns)
    orphan = handed_to_us()
    cgs_left, slot_kept = cgroups_of(p.pid), slot_left(slot)
    died_of = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    report(died_of == sig and sup_gone and after == 0 and orphan is None and cgs and
           not cgs_left and slot is not None and not slot_kept,
           f"{name} to a native run of {before} processes: the CLI died of "
           f"{signame(died_of) if died_of else 'nothing (exit %d)' % os.WEXITSTATUS(status)}"
           f" after {ms:.0f} ms; supervisor exited first: {sup_gone}; left in its pid namespace: "
           f"{after}; handed to us: {orphan}; cgroups {len(cgs)} before, {len(cgs_left)} after; "
           f"id slot {slot[0] if slot else None} left: {slot_kept}")
    if orphan:
        os.waitpid(orphan, 0)


def ignore_int():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def block_term():
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])


for what, setup, sig in (("an ignored SIGINT", ignore_int, signal.SIGINT),
                         ("a blocked SIGTERM", block_term, signal.SIGTERM)):
    p, sup, ns = start('import time; time.sleep(1.5); print("done")', setup)
    if sup is None:
        report(False, f"{what}: the run never got going")
        continue
    os.kill(p.pid, sig)
    out, _ = p.communicate(timeout=30)
    report(p.returncode == 0 and out == b"done\n",
           f"{what} stays the caller's: the run completed (exit {p.returncode}, {out!r})")

sys.exit(1 if fails else 0)
