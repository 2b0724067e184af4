"""Connect to an abstract unix socket the harness listens on (abstract names belong to the
network namespace, not to the file system, so mount and Landlock path rules miss them)."""
import socket
from chaoslib import start, param, say

nonce = start()
try:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(1.5)
        s.connect("\0" + param("ABSTRACT"))
        s.sendall(("abstract:" + nonce).encode())
    say("abstract: sent")
except OSError as e:
    say("abstract failed:", e)
