#!/usr/bin/env bash
# Installs every Debian package the build, the tests and the benchmarks need. Idempotent; run as root.
set -euo pipefail

PKGS=(
  build-essential cmake pkg-config clang clang-format libclang-rt-14-dev
  libseccomp-dev libcap-dev libjansson-dev libcmocka-dev
  libcurl4-openssl-dev libarchive-dev zlib1g-dev
  libssl-dev # only the fuzz targets: OpenSSL decodes our base64 independently
  python3 python3-scipy iproute2 procps curl
  bubblewrap # make bench compares agent-sandbox run with it (bench/bench_cli.c)
  musl-tools musl-dev # the supervisor is linked against musl: it starts ~0.8 ms faster
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "agent-sandbox: error: bootstrap needs root to install: ${missing[*]}" >&2
  exit 1
fi
echo "bootstrap: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Another process may hold the dpkg lock (unattended upgrades, a parallel job): wait for it.
apt-get -o DPkg::Lock::Timeout=300 update -q
apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends "${missing[@]}"
