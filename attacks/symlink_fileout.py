"""Leave out.txt as a symlink to a host canary and hope the harness's file-out follows it.
In a positive-control run it copies the canary instead (proves the judge can say succeeded)."""
import os
from chaoslib import start, param, control, say, read_bytes

start()
target = param("CANARY_ROOT")
try:
    if control():
        with open("out.txt", "wb") as f:
            f.write(read_bytes(target))
    else:
        os.symlink(target, "out.txt")
    say("out.txt ready")
except OSError as e:
    say("symlink failed:", e)
