"""Read the host's disk past the page cache: O_DIRECT reads of a host file the sandbox sees (the
interpreter's own, under /usr), 1 MiB at a time for 2 s, go to the disk every time whatever the
cache holds (red-team finding, session 19: one hardened run read 13 GB in 9 s and the host's own
reads fell from 14,400/s to 335/s). The harness counts the device's reads itself."""
import mmap
import os
import time
from chaoslib import start, say, param

start()
path = param("READ_FILE")
try:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    size = os.fstat(fd).st_size // (1 << 20) * (1 << 20)
    buf = mmap.mmap(-1, 1 << 20)
    end = time.monotonic() + 2.0
    off = total = 0
    while time.monotonic() < end and size:
        total += os.preadv(fd, [buf], off)
        off = (off + (1 << 20)) % size
    say("read", total >> 20, "MiB of", path)
except OSError as e:
    say("could not read", path, ":", e)
