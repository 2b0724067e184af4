"""mount(2) a tmpfs on a host directory the harness created."""
import ctypes
import ctypes.util
import os
from chaoslib import start, param, say

start()
libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
# Only the harness's own target: on the host (subprocess) any other mount would outlive the run.
target = param("MOUNT_TARGET").encode()
r = libc.mount(b"tmpfs", target, b"tmpfs", 0, b"size=1m")
say("mount", target, "->", r, os.strerror(ctypes.get_errno()) if r else "ok")
