"""Fork 300 processes (bounded: each sleeps 1 s and exits)."""
import os
import time
from chaoslib import start, say

start()
kids = []
try:
    for _ in range(300):
        pid = os.fork()
        if pid == 0:
            time.sleep(1.0)
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
