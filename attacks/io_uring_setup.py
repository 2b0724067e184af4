"""Create an io_uring instance (its I/O runs on kernel workers that seccomp never sees) and
keep it open so the harness can see it in our fd table."""
import ctypes
import ctypes.util
from chaoslib import start, say, hold

start()
libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
libc.syscall.restype = ctypes.c_long
params = ctypes.create_string_buffer(120)
fd = libc.syscall(425, 8, params)  # io_uring_setup(entries=8, params)
say("io_uring_setup ->", fd, "errno", ctypes.get_errno() if fd < 0 else 0)
hold(0.8)
