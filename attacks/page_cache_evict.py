"""Empty the host's page cache of a file the sandbox can read: POSIX_FADV_DONTNEED drops the
clean cached pages of a file, and the host's copy is the same page cache (red-team finding: a
hardened run emptied the cache of any /usr file it could open and, dropping and rereading,
drove gigabytes of disk reads). The harness cached the file just before the run and counts its
cached pages itself afterwards."""
import os
from chaoslib import start, say, param

start()
path = param("CACHE_FILE")
try:
    fd = os.open(path, os.O_RDONLY)
    for _ in range(10):
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
    say("advised POSIX_FADV_DONTNEED on", path)
except OSError as e:
    say("could not advise on", path, ":", e)
