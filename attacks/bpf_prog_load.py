"""Load a two-instruction eBPF socket filter with bpf(BPF_PROG_LOAD) (the verifier and the JIT
are a kernel code-execution primitive when they have a bug) and keep the program's fd open so
the harness can see it in our fd table."""
import ctypes
import struct
from chaoslib import start, say, hold, syscall

NR = {"x86_64": 321, "aarch64": 280}  # bpf(2)

start()
insns = struct.pack("<BBhi", 0xB7, 0, 0, 0) + struct.pack("<BBhi", 0x95, 0, 0, 0)  # r0 = 0; exit
ibuf = ctypes.create_string_buffer(insns, len(insns))
lic = ctypes.create_string_buffer(b"GPL")
attr = ctypes.create_string_buffer(144)
# prog_type SOCKET_FILTER (1), insn_cnt 2, insns, license
struct.pack_into("<IIQQ", attr, 0, 1, 2, ctypes.addressof(ibuf), ctypes.addressof(lic))
fd, err = syscall(NR, 5, attr, 144)  # bpf(BPF_PROG_LOAD, attr, size)
say("bpf(BPF_PROG_LOAD) ->", fd, "errno", err)
hold(0.8)
