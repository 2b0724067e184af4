"""Create a nested user namespace (full capabilities inside it: the door to many kernel bugs)."""
import ctypes
import ctypes.util
import os
from chaoslib import start, say, hold

start()
libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
pid = os.fork()
if pid == 0:
    r = libc.unshare(0x10000000)  # CLONE_NEWUSER
    say("unshare(CLONE_NEWUSER) ->", r, "errno", ctypes.get_errno() if r else 0)
    hold(0.8)
    os._exit(0)
os.waitpid(pid, 0)
