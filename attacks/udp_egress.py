"""Send the nonce in a UDP datagram to the harness's listener on each host address."""
import socket
from chaoslib import start, param, say, hosts

nonce = start()
for host in hosts():
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for _ in range(3):
            s.sendto(("udp:" + nonce).encode(), (host, int(param("UDP_PORT", "0"))))
        say("udp: sent to", host)
    except (OSError, ValueError) as e:
        say("udp to", host, "failed:", e)
