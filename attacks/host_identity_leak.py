"""Print what names the host: its boot id (the same in every namespace unless masked), its kernel
command line and its uptime (a fingerprint to tell hosts apart and to match a sandbox to one)."""
from chaoslib import start, say, read_bytes

start()
for path in ("/proc/sys/kernel/random/boot_id", "/proc/cmdline", "/proc/uptime"):
    say(path, read_bytes(path).decode(errors="replace").strip())
