"""Print the kernel release (a fingerprint for picking kernel exploits)."""
import os
from chaoslib import start, say, read_bytes

start()
say(" ".join(os.uname()))
for path in ("/proc/version", "/proc/sys/kernel/osrelease", "/proc/sys/kernel/version"):
    say(read_bytes(path).decode(errors="replace"))
