"""Run as root: try setuid(0), then stay alive so the harness can read our host uid."""
import os
from chaoslib import start, say, hold

start()
try:
    os.setuid(0)
except OSError as e:
    say("setuid(0) failed:", e)
say("uid", os.getuid(), "euid", os.geteuid())
hold(0.8)
