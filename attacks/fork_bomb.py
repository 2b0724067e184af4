"""Fork 300 processes (bounded: each sleeps 3 s and exits).

3 s, not 1: the judge needs all 300 alive at once, and on a loaded 2-vCPU host forking 300
Python processes took longer than 1 s, so the unconfined control's first children were gone
before its last was born (296 seen at once)."""
import os
import time
from chaoslib import start, say

start()
kids = []
try:
    for _ in range(300):
        pid = os.fork()
        if pid == 0:
            time.sleep(3.0)
            os._exit(0)
        kids.append(pid)
except OSError as e:
    say("fork failed after", len(kids), ":", e)
say("forked", len(kids))
for pid in kids:
    try:
        os.waitpid(pid, 0)
    except OSError:
        pass
