#!/usr/bin/env bash
# Makes sure a Node.js of the required major version is available.
#
# When the `node` on PATH is older than NODE_MAJOR, installs the npm package
# `node-<platform>-<arch>@NODE_MAJOR` (the official Node.js build, published on
# the npm registry) into .tools/node and prints nothing else. The Makefile puts
# .tools/node/bin first on PATH, so every target then runs that Node.js.
#
# Idempotent: a second run with the toolchain present returns in milliseconds.
set -euo pipefail

NODE_MAJOR="${NODE_MAJOR:-24}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/.tools"
dest="$tools/node"

major_of() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [[ -x "$dest/bin/node" ]] && [[ "$(major_of "$dest/bin/node")" -ge "$NODE_MAJOR" ]]; then
  exit 0
fi
# A new enough system Node needs nothing installed; skip the check when told to
# install anyway (CI uses that to test this script).
if [[ "${FORCE_LOCAL_NODE:-}" != 1 ]] && command -v node >/dev/null &&
  [[ "$(major_of "$(command -v node)")" -ge "$NODE_MAJOR" ]]; then
  exit 0
fi
command -v npm >/dev/null || {
  echo "ensure-node: Node.js >= $NODE_MAJOR is needed and npm is not available to install it." >&2
  echo "ensure-node: install Node.js $NODE_MAJOR LTS (https://nodejs.org) and run again." >&2
  exit 1
}

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) echo "ensure-node: unsupported OS $(uname -s); install Node.js $NODE_MAJOR yourself." >&2; exit 1 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "ensure-node: unsupported CPU $(uname -m); install Node.js $NODE_MAJOR yourself." >&2; exit 1 ;;
esac
pkg="node-$os-$arch@$NODE_MAJOR"

echo "ensure-node: installing $pkg into .tools/node (once)..." >&2
mkdir -p "$tools"
stage="$(mktemp -d "$tools/.stage.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
# npm's own cache (outside the repository) makes a reinstall on a fresh clone quick.
npm install --prefix "$stage" --no-save --no-package-lock --ignore-scripts --no-audit --no-fund \
  --loglevel=error "$pkg" >&2
src="$stage/node_modules/node-$os-$arch"
[[ -x "$src/bin/node" ]] || { echo "ensure-node: $pkg did not contain bin/node" >&2; exit 1; }
mkdir -p "$tools"
rm -rf "$dest"
mv "$src" "$dest"
# The package ships node only; npm and npx come with the system npm, which runs
# under whichever node is first on PATH.
echo "ensure-node: $("$dest/bin/node" --version) ready in .tools/node" >&2
