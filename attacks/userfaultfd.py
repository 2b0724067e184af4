"""Create a userfaultfd (it lets a program pause the kernel in the middle of a copy from user
memory, which turns kernel races into reliable exploits), in the user-mode-only flavour that
unprivileged programs may still get, and keep it open so the harness can see it in our fd
table."""
from chaoslib import start, say, hold, syscall

NR = {"x86_64": 323, "aarch64": 282}  # userfaultfd(2)

start()
fd, err = syscall(NR, 0o2000000 | 1)  # userfaultfd(O_CLOEXEC | UFFD_USER_MODE_ONLY)
say("userfaultfd ->", fd, "errno", err)
hold(0.8)
