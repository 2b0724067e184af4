"""Write 40 MB into one file in the working directory (the run's own dir / workspace)."""
from chaoslib import start, say

nonce = start()
chunk = (nonce.encode() * (1 << 20))[: 1 << 20]
written = 0
try:
    with open("fill.bin", "wb") as f:
        for _ in range(40):
            f.write(chunk)
            written += len(chunk)
        f.flush()
except OSError as e:
    say("disk_fill stopped:", e)
say("disk_fill wrote", written)
