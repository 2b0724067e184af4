"""Open a software perf event on ourselves with perf_event_open(2) (a frequent source of kernel
privilege escalations and of side channels) and keep its fd open so the harness can see it in
our fd table."""
import ctypes
import ctypes.util
import platform
import struct
from chaoslib import start, say, hold

NR = {"x86_64": 298, "aarch64": 241}.get(platform.machine())  # perf_event_open(2)

start()
if NR is None:
    raise SystemExit("no perf_event_open syscall number for " + platform.machine())
libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
libc.syscall.restype = ctypes.c_long
attr = ctypes.create_string_buffer(128)
struct.pack_into("<IIQ", attr, 0, 1, 128, 0)  # PERF_TYPE_SOFTWARE, size, PERF_COUNT_SW_CPU_CLOCK
struct.pack_into("<Q", attr, 40, (1 << 5) | (1 << 6))  # exclude_kernel | exclude_hv
fd = libc.syscall(NR, attr, 0, -1, -1, 0)  # this process, any CPU, no group
say("perf_event_open ->", fd, "errno", ctypes.get_errno() if fd < 0 else 0)
hold(0.8)
