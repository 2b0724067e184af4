"""Fork 300 processes (bounded: each waits for its parent to finish forking, then exits).

The judge needs all 300 alive at once. The children used to sleep a fixed time (1 s, then 3 s),
and on a loaded 2-vCPU host forking 300 Python processes took longer than that, so the
unconfined control's first children were gone before its last was born (296, later 299, seen at
once). Now every child blocks on a pipe until the parent has forked them all and held them for
three seconds: one scan of the harness's watcher reads several /proc files of each of the 300,
and in a loaded CI run a scan outlasted a one-second hold (298 seen). The parent's exit (or its
alarm) closes the pipe too, so no child outlives it for long."""
import os
import time
from chaoslib import start, say

start(27)  # 300 forks on a loaded host, the 3 s hold, 300 reaps: 11 s seen, the control allows 30
r, w = os.pipe()
kids = []
try:
    for _ in range(300):
        pid = os.fork()
        if pid == 0:
            os.close(w)
            try:
                os.read(r, 1)  # EOF when the parent closes its end or dies
            finally:
                os._exit(0)
        kids.append(pid)
except OSError as e:
    say("fork failed after", len(kids), ":", e)
say("forked", len(kids))
time.sleep(3.0)  # all of them alive at once, for the harness's watcher to count
os.close(w)
for pid in kids:
    try:
        os.waitpid(pid, 0)
    except OSError:
        pass
