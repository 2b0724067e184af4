"""Create an io_uring instance (its I/O runs on kernel workers that seccomp never sees) and
keep it open so the harness can see it in our fd table."""
import ctypes
from chaoslib import start, say, hold, syscall

start()
params = ctypes.create_string_buffer(120)
fd, err = syscall({"x86_64": 425, "aarch64": 425}, 8, params)  # io_uring_setup(8, params)
say("io_uring_setup ->", fd, "errno", err)
hold(0.8)
