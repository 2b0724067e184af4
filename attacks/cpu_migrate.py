"""Move 4 spinning processes between CPUs for 1.5 s: every move of a running task is done by the
per-CPU stopper (migration) thread, a kernel thread outside every cgroup (red-team finding, session
15). Prints how many moves were made, or that the kernel refused them."""
import os
import time
from chaoslib import start, say

start()
cpus = sorted(os.sched_getaffinity(0))
if len(cpus) < 2:
    say("single cpu")
    raise SystemExit(0)
try:
    os.sched_setaffinity(0, set(cpus))
except OSError as e:
    say("refused", e.errno)
    raise SystemExit(0)
r, w = os.pipe()
kids = []
for k in range(4):
    pid = os.fork()
    if pid == 0:
        os.close(r)
        moves, i, end = 0, k, time.monotonic() + 1.5
        while time.monotonic() < end:
            try:
                os.sched_setaffinity(0, {cpus[i % len(cpus)]})
                moves += 1
            except OSError:
                break
            i += 1
        os.write(w, b"%d\n" % moves)
        os._exit(0)
    kids.append(pid)
os.close(w)
for pid in kids:
    os.waitpid(pid, 0)
total = sum(int(x) for x in os.read(r, 4096).split())
say("moves", total)
