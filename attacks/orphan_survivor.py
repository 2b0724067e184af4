"""Double-fork a daemon (new session) that keeps touching a marker for 4 s after we exit."""
import os
import signal
import time
from chaoslib import start, param

start()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        signal.alarm(5)  # bounded even if nobody kills it
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        marker = param("MARKER")
        for i in range(40):
            try:
                with open(marker, "w") as f:
                    f.write("%d %f\n" % (i, time.time()))
            except OSError:
                pass
            time.sleep(0.1)
        os._exit(0)
    os._exit(0)
