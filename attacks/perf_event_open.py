"""Open a software perf event on ourselves with perf_event_open(2) (a frequent source of kernel
privilege escalations and of side channels) and keep its fd open so the harness can see it in
our fd table."""
import ctypes
import struct
from chaoslib import start, say, hold, syscall

NR = {"x86_64": 298, "aarch64": 241}  # perf_event_open(2)

start()
attr = ctypes.create_string_buffer(128)
struct.pack_into("<IIQ", attr, 0, 1, 128, 0)  # PERF_TYPE_SOFTWARE, size, PERF_COUNT_SW_CPU_CLOCK
struct.pack_into("<Q", attr, 40, (1 << 5) | (1 << 6))  # exclude_kernel | exclude_hv
fd, err = syscall(NR, attr, 0, -1, -1, 0)  # this process, any CPU, no group
say("perf_event_open ->", fd, "errno", err)
hold(0.8)
