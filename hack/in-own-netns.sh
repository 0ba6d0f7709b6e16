#!/usr/bin/env bash
# Runs a command in a network namespace of its own, with only loopback, when run as root (else as it is).
# make test runs the end-to-end suites without boxes beside the box suites, which add and remove network
# interfaces on the host all the time: Chromium watches the host's interfaces and aborts every request under
# way with ERR_NETWORK_CHANGED when one changes. In a namespace of its own it sees none of them; the platform
# it tests, its database and every local fake listen on loopback there.
set -euo pipefail
if [[ "$(id -u)" -ne 0 ]] || ! command -v unshare >/dev/null; then exec "$@"; fi
exec unshare --net -- bash -c 'ip link set lo up && exec "$@"' bash "$@"
