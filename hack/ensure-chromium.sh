#!/usr/bin/env bash
# Makes sure a Chromium for the end-to-end tests is installed (Debian's package).
# Idempotent: returns at once when CHROMIUM_PATH (default /usr/bin/chromium) runs.
set -euo pipefail

chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [[ -x "$chromium" ]] && "$chromium" --version >/dev/null 2>&1; then
  exit 0
fi
if [[ "$chromium" != /usr/bin/chromium ]]; then
  echo "ensure-chromium: CHROMIUM_PATH=$chromium does not run." >&2
  exit 1
fi
if ! command -v apt-get >/dev/null; then
  echo "ensure-chromium: no Chromium at $chromium and no apt-get to install it." >&2
  echo "ensure-chromium: install Chromium and set CHROMIUM_PATH to its binary." >&2
  exit 1
fi
sudo=""
if [[ "$(id -u)" -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "ensure-chromium: run as root or install sudo to install chromium." >&2; exit 1; }
  sudo="sudo"
fi
echo "ensure-chromium: installing Debian's chromium (once)..." >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >&2
$sudo apt-get install -y -qq --no-install-recommends chromium fonts-liberation >&2
"$chromium" --version >&2
