"""Connect to the harness's TCP listener on host loopback and send the nonce."""
import socket
from chaoslib import start, param, say

nonce = start()
try:
    with socket.create_connection(("127.0.0.1", int(param("TCP_PORT", "0"))), timeout=2) as s:
        s.sendall(("tcp:" + nonce + "\n").encode())
    say("tcp: sent")
except (OSError, ValueError) as e:
    say("tcp failed:", e)
