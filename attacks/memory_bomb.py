"""Allocate and touch 300 MB (bounded)."""
from chaoslib import start, say, hold

start(18)  # the harness allows 15 s: first touches are slow on a loaded VM
blocks = []
try:
    for _ in range(30):
        b = bytearray(10 << 20)
        for i in range(0, len(b), 4096):
            b[i] = 1
        blocks.append(b)
except MemoryError:
    say("MemoryError")
say("touched", len(blocks) * 10, "MB")
hold(0.3)
