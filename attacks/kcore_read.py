"""Read kernel memory through /proc/kcore and print the first 1 KiB as hex."""
from chaoslib import start, say, read_bytes

start()
say(read_bytes("/proc/kcore", 1024).hex())
