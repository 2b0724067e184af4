"""Spin on every CPU for 0.8 s (3 processes), and wait for them so their time is accounted."""
import os
import time
from chaoslib import start, say

start()
kids = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        end = time.monotonic() + 0.8
        while time.monotonic() < end:
            pass
        os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
say("spun")
