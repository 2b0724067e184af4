"""Read physical memory through /dev/mem, or through a node we create with mknod."""
import os
import stat
from chaoslib import start, say

start()
for path in ("/dev/mem", "mem"):
    try:
        if path == "mem":
            os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 1))
        with open(path, "rb") as f:
            say(f.read(256).hex())
            break
    except OSError as e:
        say(path, "failed:", e)
