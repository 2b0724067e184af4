"""Create a userfaultfd (it lets a program pause the kernel in the middle of a copy from user
memory, which turns kernel races into reliable exploits), in the user-mode-only flavour that
unprivileged programs may still get, and keep it open so the harness can see it in our fd
table."""
import ctypes
import ctypes.util
import platform
from chaoslib import start, say, hold

NR = {"x86_64": 323, "aarch64": 282}.get(platform.machine())  # userfaultfd(2)

start()
if NR is None:
    raise SystemExit("no userfaultfd syscall number for " + platform.machine())
libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
libc.syscall.restype = ctypes.c_long
fd = libc.syscall(NR, 0o2000000 | 1)  # userfaultfd(O_CLOEXEC | UFFD_USER_MODE_ONLY)
say("userfaultfd ->", fd, "errno", ctypes.get_errno() if fd < 0 else 0)
hold(0.8)
