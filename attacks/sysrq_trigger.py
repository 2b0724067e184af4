"""Write a harmless key ('h': print help to the kernel log) to /proc/sysrq-trigger. A write
that reaches the kernel could as well be 'b' (reboot) or 'c' (crash)."""
from chaoslib import start, say

start()
try:
    with open("/proc/sysrq-trigger", "w") as f:
        f.write("h")
    say("sysrq written")
except OSError as e:
    say("sysrq failed:", e)
