"""Write ~50 MB to stdout."""
import os
import sys
from chaoslib import start

start()
chunk = b"A" * (1 << 20)
try:
    for _ in range(50):
        sys.stdout.buffer.write(chunk)
    sys.stdout.buffer.flush()
except (BrokenPipeError, OSError):
    os._exit(1)
