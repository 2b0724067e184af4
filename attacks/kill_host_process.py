"""SIGKILL a host process the harness started (its pid is passed in)."""
import os
import signal
from chaoslib import start, param, say

start()
try:
    os.kill(int(param("VICTIM_PID", "0")), signal.SIGKILL)
    say("killed")
except (OSError, ValueError) as e:
    say("kill failed:", e)
