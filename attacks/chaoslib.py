"""Shared helpers for the chaos attacks (stdlib only).

Every attack is run as `python3 ATTACK.py NONCE` inside the sandbox; the harness passes its
parameters as ASB_CHAOS_* environment additions. What an attack prints is never evidence by
itself: the harness judges from what it observes (its listeners, its files, /proc, its clocks).
"""
import ctypes
import ctypes.util
import os
import platform
import signal
import sys
import time


def start(seconds=8):
    """Arm our own alarm so the attack never hangs, and return the run's nonce."""
    signal.signal(signal.SIGALRM, signal.SIG_DFL)  # default action: terminate
    signal.alarm(seconds)
    return sys.argv[1] if len(sys.argv) > 1 else ""


def param(name, default=""):
    return os.environ.get("ASB_CHAOS_" + name, default)


def hosts():
    """The host addresses the harness listens on: 127.0.0.1, and for docker runs the bridge's
    host address too (a container has its own loopback; the bridge is its way to the host)."""
    return param("HOSTS", "127.0.0.1").split()


def say(*parts):
    print(*parts, flush=True)


def control():
    """True in a test-only positive-control run (the harness sets it, never for the matrix)."""
    return param("CONTROL") == "1"


def hold(seconds):
    """Keep the state alive long enough for the harness's process watcher to see it."""
    time.sleep(seconds)


def read_bytes(path, limit=1 << 20):
    try:
        with open(path, "rb") as f:
            return f.read(limit)
    except OSError as e:
        say("read", path, "failed:", e)
        return b""


def syscall(numbers, *args):
    """A raw system call: numbers maps platform.machine() to its number on that architecture.
    Returns (result, errno); an architecture not in numbers ends the attack with a message."""
    nr = numbers.get(platform.machine())
    if nr is None:
        raise SystemExit("no syscall number for " + platform.machine())
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.syscall.restype = ctypes.c_long
    r = libc.syscall(nr, *args)
    return r, (ctypes.get_errno() if r < 0 else 0)
