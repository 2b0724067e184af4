"""Leave out.txt as a hard link to a host canary (O_NOFOLLOW does not stop hard links).
In a positive-control run it copies the canary instead (proves the judge can say succeeded)."""
import os
from chaoslib import start, param, control, say, read_bytes

start()
try:
    if control():
        with open("out.txt", "wb") as f:
            f.write(read_bytes(param("CANARY_TMP")))
    else:
        os.link(param("CANARY_TMP"), "out.txt")
    say("out.txt ready")
except OSError as e:
    say("link failed:", e)
