"""Write ~50 MB to stdout."""
import os
import sys
from chaoslib import start

start(18)  # the control allows 15 s; the matrix ends it at 5 s or at the cap
chunk = b"A" * (1 << 20)
try:
    for _ in range(50):
        sys.stdout.buffer.write(chunk)
    sys.stdout.buffer.flush()
except (BrokenPipeError, OSError):
    os._exit(1)
