"""Hold standard signals pending: 40 processes block every catchable signal but SIGALRM, and
each is sent all 28 with kill(2). The kernel queues standard signals from kill(2) whatever
RLIMIT_SIGPENDING says, and counts each against the user of the receiver and, up the user
namespaces, against the namespace's creator: host root, whose own limit then applies to every
root process on the host (posix timers, sigqueue)."""
import os
import signal
import time
from chaoslib import start, say, hold

start()
# SIGALRM stays deliverable: start() armed it as this attack's own deadline.
sigs = [s for s in range(1, 32) if s not in (signal.SIGKILL, signal.SIGSTOP, signal.SIGALRM)]
signal.pthread_sigmask(signal.SIG_BLOCK, sigs)
kids = []
try:
    for _ in range(40):
        pid = os.fork()
        if pid == 0:
            time.sleep(8)  # the mask is inherited: everything sent stays pending
            os._exit(0)
        kids.append(pid)
except OSError as e:
    say("forked", len(kids), "before", e)
sent = 0
for pid in kids + [os.getpid()]:
    for s in sigs:
        try:
            os.kill(pid, s)
            sent += 1
        except OSError:
            pass
with open("/proc/self/status") as f:
    q = [l.strip() for l in f if l.startswith("SigQ:")]
say("sent", sent, "signals to", len(kids) + 1, "blocking processes;", *q)
hold(2.0)
for pid in kids:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
for pid in kids:  # reaped: a dead process's pending signals are freed only then
    try:
        os.waitpid(pid, 0)
    except OSError:
        pass
