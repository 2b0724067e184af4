"""Open a raw IP socket and hand-craft a UDP packet to the harness's UDP listener."""
import socket
import struct
from chaoslib import start, param, say

nonce = start()
payload = ("raw:" + nonce).encode()
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
    hdr = struct.pack(">HHHH", 40000, int(param("UDP_PORT", "0")), 8 + len(payload), 0)
    for _ in range(3):
        s.sendto(hdr + payload, ("127.0.0.1", 0))
    say("raw: sent")
except (OSError, ValueError) as e:
    say("raw socket failed:", e)
