#!/usr/bin/env bash
# Installs the Debian packages the local box runtime uses (containers, base image, VPN,
# firewall, the referee's bpftrace, ssh and openssl clients, box disks (e2fsprogs), the C
# compiler of the boxes' syscall filter; sshpass, jq and ping for the tests), once. Idempotent: returns at
# once when every command is there. Without root and without apt it explains and exits 0:
# the platform then runs without boxes and says why.
set -euo pipefail

declare -A packages=(
  [systemd-nspawn]=systemd-container
  [debootstrap]=debootstrap
  [openvpn]=openvpn
  [nft]=nftables
  [ip]=iproute2
  [nsenter]=util-linux
  [ssh-keygen]=openssh-client
  [ssh]=openssh-client
  [openssl]=openssl
  [mkfs.ext4]=e2fsprogs
  [fallocate]=util-linux
  [losetup]=util-linux
  [cc]=gcc
  [bpftrace]=bpftrace
  [sshpass]=sshpass
  [jq]=jq
  [ping]=iputils-ping
  [curl]=curl
)
missing=()
for command in "${!packages[@]}"; do
  command -v "$command" >/dev/null 2>&1 || missing+=("${packages[$command]}")
done
# box-init (the boxes' syscall filter) is compiled static: it needs libc.a and the kernel's headers.
[[ -e /usr/include/linux/seccomp.h ]] || missing+=(linux-libc-dev)
compgen -G '/usr/lib/*/libc.a' >/dev/null || missing+=(libc6-dev)
[[ ${#missing[@]} -eq 0 ]] && exit 0
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)

if [[ "$(id -u)" -ne 0 ]]; then
  echo "ensure-box-deps: boxes need root; missing packages: ${missing[*]} (boxes will stay off)." >&2
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "ensure-box-deps: no apt-get; install these yourself for boxes: ${missing[*]}" >&2
  exit 0
fi
echo "ensure-box-deps: installing ${missing[*]} (once)..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2 || true
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
