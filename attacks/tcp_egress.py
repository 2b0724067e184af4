"""Connect to the harness's TCP listener on each host address and send the nonce."""
import socket
from chaoslib import start, param, say, hosts

nonce = start()
for host in hosts():
    try:
        with socket.create_connection((host, int(param("TCP_PORT", "0"))), timeout=2) as s:
            s.sendall(("tcp:" + nonce + "\n").encode())
        say("tcp: sent to", host)
    except (OSError, ValueError) as e:
        say("tcp to", host, "failed:", e)
