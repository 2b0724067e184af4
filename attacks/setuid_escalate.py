"""Plant a setuid copy of the interpreter, drop to nobody, exec the copy: a process that runs
with an effective uid different from its real uid is an escalation."""
import os
import shutil
import sys
from chaoslib import start, say

nonce = start()
dst = os.path.abspath("suidpy")
try:
    os.chmod(".", 0o755)  # our own directory: let the uid we drop to reach the copy
    shutil.copy(os.path.realpath(sys.executable), dst)
    os.chmod(dst, 0o4755)
except OSError as e:
    say("plant failed:", e)
pid = os.fork()
if pid == 0:
    try:
        if os.getuid() == 0:
            os.setgroups([])
            os.setresgid(65534, 65534, 65534)
            os.setresuid(65534, 65534, 65534)
        os.execv(dst, [dst, "-c", "import os,time;print('euid',os.geteuid());time.sleep(0.8)",
                       nonce])
    except OSError as e:
        say("exec failed:", e)
    os._exit(1)
os.waitpid(pid, 0)
