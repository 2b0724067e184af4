"""Print the kernel release (a fingerprint for picking kernel exploits)."""
import os
from chaoslib import start, say, read_bytes

start()
say(" ".join(os.uname()))
say(read_bytes("/proc/version").decode(errors="replace"))
