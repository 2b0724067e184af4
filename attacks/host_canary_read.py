"""Read the files the harness planted on the host, in /root and in /tmp."""
from chaoslib import start, param, say, read_bytes

start()
for key in ("CANARY_ROOT", "CANARY_TMP"):
    path = param(key)
    data = read_bytes(path)
    if data:
        say(key, data.decode(errors="replace"))
