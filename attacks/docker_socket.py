"""Talk to a Docker API socket: the standard paths and the host-side socket the harness serves."""
import socket
from chaoslib import start, param, say

nonce = start()
req = ("GET /v1.41/containers/json?nonce=%s HTTP/1.0\r\nHost: docker\r\n\r\n" % nonce).encode()
for path in ("/var/run/docker.sock", "/run/docker.sock", param("DOCKER_DECOY")):
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(1.5)
            s.connect(path)
            s.sendall(req)
            say(path, "answered", s.recv(256))
    except OSError as e:
        say(path, "failed:", e)
