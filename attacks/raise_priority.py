"""Raise our scheduling priority (negative nice, real-time policy), then stay visible."""
import os
from chaoslib import start, say, hold

start()
try:
    os.setpriority(os.PRIO_PROCESS, 0, -10)
except OSError as e:
    say("nice -10 failed:", e)
try:
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
except OSError as e:
    say("SCHED_FIFO failed:", e)
hold(0.8)
