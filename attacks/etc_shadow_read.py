"""Read /etc/shadow (password hashes of the host when the sandbox sees the host's /etc)."""
from chaoslib import start, say, read_bytes

start()
say(read_bytes("/etc/shadow").decode(errors="replace"))
