"""Hold whatever capabilities we were given; the harness reads CapEff from the host's /proc."""
from chaoslib import start, say, read_bytes, hold

start()
for line in read_bytes("/proc/self/status").decode().splitlines():
    if line.startswith("Cap"):
        say(line)
hold(0.8)
