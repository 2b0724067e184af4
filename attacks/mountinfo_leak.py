"""Print the mount table: host devices, paths and layout."""
from chaoslib import start, say, read_bytes

start()
say(read_bytes("/proc/self/mountinfo").decode(errors="replace"))
