#!/usr/bin/env bash
# The test control plane's binaries, built from Go modules at pinned versions, once:
# kube-apiserver (module k8s.io/kubernetes, cmd/kube-apiserver) and etcd 3.5 (module
# go.etcd.io/etcd/server/v3). Cached outside the repository in
# ${XDG_CACHE_HOME:-~/.cache}/exploit-grid/kube/<versions>/; prints that directory.
#
# k8s.io/kubernetes is not meant to be a dependency: its go.mod points every k8s.io/* staging
# module at ./staging/... The replace lines below pin each of them to the published v0.X.Y that
# matches v1.X.Y, generated from the module's own go.mod. (Debian's etcd 3.4 is too old for
# current API servers.)
#
#   hack/ensure-kube-testbin.sh            → prints the directory holding kube-apiserver and etcd
set -euo pipefail

KUBE_VERSION=v1.34.4
ETCD_VERSION=v3.5.35

cache="${XDG_CACHE_HOME:-$HOME/.cache}/exploit-grid/kube/kube-${KUBE_VERSION}-etcd-${ETCD_VERSION}"
if [[ -x "$cache/kube-apiserver" && -x "$cache/etcd" ]]; then
  echo "$cache"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "ensure-kube-testbin: installing Go (once)..." >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends golang-go >&2 ||
      { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends golang-go >&2; }
  else
    echo "ensure-kube-testbin: Go is needed to build the test control plane (install it, or run as root)." >&2
    exit 1
  fi
fi
# An older Go fetches the toolchain the modules ask for (a Go module itself).
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
export GOFLAGS="-mod=mod -buildvcs=false"
export CGO_ENABLED=0

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$cache.partial"
minor="${KUBE_VERSION#v1.}"

echo "ensure-kube-testbin: building kube-apiserver $KUBE_VERSION (once, several minutes)..." >&2
mkdir "$work/apiserver"
(
  cd "$work/apiserver"
  go mod init exploit-grid.test/kube-apiserver >/dev/null 2>&1
  gomod="$(go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/^\t"GoMod": "\(.*\)",$/\1/p')"
  [[ -f "$gomod" ]] || { echo "ensure-kube-testbin: no go.mod for k8s.io/kubernetes@$KUBE_VERSION" >&2; exit 1; }
  # Every `k8s.io/x => ./staging/src/k8s.io/x` becomes `k8s.io/x => k8s.io/x v0.<minor>`.
  replaces=()
  while read -r module; do
    replaces+=("-replace=$module=$module@v0.$minor")
  done < <(go mod edit -json "$gomod" | tr -d ' \t\n' | grep -o '"Old":{"Path":"[^"]*"},"New":{"Path":"\./staging[^"]*"' |
    sed 's/"Old":{"Path":"\([^"]*\)".*/\1/')
  [[ ${#replaces[@]} -gt 10 ]] || { echo "ensure-kube-testbin: found no staging modules in $gomod" >&2; exit 1; }
  go mod edit "${replaces[@]}" "-require=k8s.io/kubernetes@$KUBE_VERSION"
  go get "k8s.io/kubernetes/cmd/kube-apiserver@$KUBE_VERSION" >&2
  go build -trimpath -ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$KUBE_VERSION" \
    -o "$cache.partial/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
)

echo "ensure-kube-testbin: building etcd $ETCD_VERSION (once)..." >&2
mkdir "$work/etcd"
(
  cd "$work/etcd"
  go mod init exploit-grid.test/etcd >/dev/null 2>&1
  cat > main.go <<'EOF'
// etcd's own main (the root module's main.go) in a module of its own.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
  go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >&2
  go build -trimpath -ldflags="-s -w" -o "$cache.partial/etcd" .
)

"$cache.partial/kube-apiserver" --version >&2
"$cache.partial/etcd" --version | head -1 >&2
rm -rf "$cache"
mv "$cache.partial" "$cache"
echo "$cache"
