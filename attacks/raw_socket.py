"""Open a raw IP socket and hand-craft a UDP packet to the harness's UDP listener on each host
address."""
import socket
import struct
from chaoslib import start, param, say, hosts

nonce = start()
payload = ("raw:" + nonce).encode()
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
    hdr = struct.pack(">HHHH", 40000, int(param("UDP_PORT", "0")), 8 + len(payload), 0)
    for host in hosts():
        try:
            for _ in range(3):
                s.sendto(hdr + payload, (host, 0))
            say("raw: sent to", host)
        except OSError as e:
            say("raw to", host, "failed:", e)
except (OSError, ValueError) as e:
    say("raw socket failed:", e)
