"""Look for the harness's secret: our own environment, our parent's, every readable process's."""
import os
from chaoslib import start, say, read_bytes

start()
for k, v in os.environ.items():
    say("env", k, "=", v)
pids = ["self", str(os.getppid())]
try:
    pids += [p for p in os.listdir("/proc") if p.isdigit()][:4000]
except OSError:
    pass
seen = set()
for p in pids:
    data = read_bytes("/proc/%s/environ" % p, 1 << 16)
    for entry in data.split(b"\0"):
        if b"SECRET" in entry and entry not in seen:
            seen.add(entry)
            say("environ of", p, ":", entry.decode(errors="replace"))
