#!/usr/bin/env bash
# docker-setup.sh - a real Docker engine for the docker backend's tests (CI, `make test-docker`).
#
#   scripts/docker-setup.sh          install docker.io if needed, start dockerd unless an engine
#                                    already answers, wait for its socket, build the default image
#   scripts/docker-setup.sh --stop   stop the dockerd this script started (and only that one)
#
# There is no systemd on these machines, so dockerd runs in the background; its pid goes to
# $ASB_DOCKERD_STATE/dockerd.pid so --stop ends exactly the daemon we started, never another.
set -euo pipefail

STATE=${ASB_DOCKERD_STATE:-/tmp/asb-dockerd}
SOCK=/var/run/docker.sock
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CLI=${ASB_CLI:-$ROOT/build/agent-sandbox}

die() { echo "agent-sandbox: error: docker-setup: $*" >&2; exit 1; }

engine_answers() {
  curl -fsS --max-time 2 --unix-socket "$SOCK" http://docker/_ping >/dev/null 2>&1
}

stop_daemon() {
  [ -f "$STATE/dockerd.pid" ] || { echo "docker-setup: no dockerd started by us"; return 0; }
  pid=$(cat "$STATE/dockerd.pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  fi
  rm -f "$STATE/dockerd.pid"
  echo "docker-setup: stopped dockerd $pid"
}

if [ "${1:-}" = "--stop" ]; then
  stop_daemon
  exit 0
fi
[ "$(id -u)" -eq 0 ] || die "needs root (installs docker.io and starts dockerd)"

t0=$(date +%s.%N)
if ! command -v dockerd >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  # Another process may hold the dpkg lock: wait for it instead of failing.
  apt-get -o DPkg::Lock::Timeout=300 update -q
  apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends docker.io curl
fi
t1=$(date +%s.%N)

if ! engine_answers; then
  mkdir -p "$STATE"
  # Its own session: the daemon must not get the terminal's signals or die with this script.
  setsid dockerd >"$STATE/dockerd.log" 2>&1 </dev/null &
  echo $! >"$STATE/dockerd.pid"
  for _ in $(seq 1 300); do
    engine_answers && break
    kill -0 "$(cat "$STATE/dockerd.pid")" 2>/dev/null || { tail -20 "$STATE/dockerd.log" >&2; die "dockerd exited"; }
    sleep 0.1
  done
  engine_answers || die "dockerd did not answer on $SOCK within 30 s (log: $STATE/dockerd.log)"
fi
t2=$(date +%s.%N)

[ -x "$CLI" ] || die "$CLI not built (cmake -S . -B build && cmake --build build)"
"$CLI" image build
t3=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" 'BEGIN { printf "docker-setup: install %.1fs, engine %.1fs, image %.1fs\n", b - a, c - b, d - c }'
