"""Create cgroups (directories) in the host's cgroup hierarchies, where limits are set."""
import os
from chaoslib import start, param, say

start()
for path in param("CGROUP_TARGETS").split(":"):
    if not path:
        continue
    try:
        os.mkdir(path)
        say("created", path)
    except OSError as e:
        say("mkdir", path, "failed:", e)
