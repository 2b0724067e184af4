"""Hold connections nobody accepts: listen on 127.0.0.1 and connect to ourselves, then close
each client with a reset so that only the server side stays queued. The kernel charges those
queued connections to no memory cgroup until accept(), which never comes."""
import socket
import struct
from chaoslib import start, say, hold

start()
made = 0
try:
    for _ in range(8):
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(4096)
        addr = listener.getsockname()
        for _ in range(500):
            c = socket.socket()
            c.connect(addr)
            c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            c.close()
            made += 1
        globals().setdefault("keep", []).append(listener)
    say("queued", made, "connections")
except OSError as e:
    say("stopped after", made, "connections:", e)
hold(1.0)
