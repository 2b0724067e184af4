"""Send the nonce in a UDP datagram to the harness's listener on host loopback."""
import socket
from chaoslib import start, param, say

nonce = start()
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for _ in range(3):
        s.sendto(("udp:" + nonce).encode(), ("127.0.0.1", int(param("UDP_PORT", "0"))))
    say("udp: sent")
except (OSError, ValueError) as e:
    say("udp failed:", e)
