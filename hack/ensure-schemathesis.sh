#!/usr/bin/env bash
# Schemathesis (the API fuzzer of `make test-api-fuzz`), pinned, in a virtual environment of its own,
# made once outside the repository in ${XDG_CACHE_HOME:-~/.cache}/exploit-grid/schemathesis-<version>/.
# Installs Debian's python3-venv when `python3 -m venv` is missing (as root, with apt). Prints the path
# of the `st` command.
#
#   hack/ensure-schemathesis.sh    → prints the path of st
set -euo pipefail

SCHEMATHESIS_VERSION=4.32.5

venv="${XDG_CACHE_HOME:-$HOME/.cache}/exploit-grid/schemathesis-${SCHEMATHESIS_VERSION}"
if [[ -x "$venv/bin/st" ]]; then
  echo "$venv/bin/st"
  exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "ensure-schemathesis: python3 is needed (Debian: apt-get install python3 python3-venv)." >&2
  exit 1
fi
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "ensure-schemathesis: installing python3-venv (once)..." >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 || true
    apt-get install -y -qq --no-install-recommends python3-venv >&2
  else
    echo "ensure-schemathesis: python3 -m venv does not work here; install python3-venv." >&2
    exit 1
  fi
fi
echo "ensure-schemathesis: installing schemathesis $SCHEMATHESIS_VERSION into $venv (once)..." >&2
# A virtual environment is not relocatable: it is made where it stays, and marked done by `st` last.
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
python3 -m venv "$venv"
if ! "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==${SCHEMATHESIS_VERSION}" >&2; then
  rm -rf "$venv"
  exit 1
fi
echo "$venv/bin/st"
