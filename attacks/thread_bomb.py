"""Start 200 threads (bounded) and keep them alive briefly."""
import threading
from chaoslib import start, say

start()
stop = threading.Event()
threads = []
try:
    for _ in range(200):
        t = threading.Thread(target=stop.wait, args=(3,))
        t.start()
        threads.append(t)
except RuntimeError as e:
    say("thread start failed:", e)
say("threads", len(threads))
stop.wait(0.8)
stop.set()
for t in threads:
    t.join()
