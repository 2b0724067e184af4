"""Sleep well past the run's timeout (the harness gives it 1 s)."""
import time
from chaoslib import start, say

start(10)
time.sleep(3.0)
say("woke up after 3 s")
