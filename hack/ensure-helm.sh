#!/usr/bin/env bash
# helm, built from its Go module at a pinned version, once, for linting and rendering the chart
# (charts/exploit-grid) in `make test`. Cached outside the repository in
# ${XDG_CACHE_HOME:-~/.cache}/exploit-grid/helm-<version>/; prints the binary's path.
#
#   hack/ensure-helm.sh            → prints the path of helm
set -euo pipefail

HELM_VERSION=v3.22.0

cache="${XDG_CACHE_HOME:-$HOME/.cache}/exploit-grid/helm-${HELM_VERSION}"
if [[ -x "$cache/helm" ]]; then
  echo "$cache/helm"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "ensure-helm: Go is needed to build helm (hack/ensure-kube-testbin.sh installs it when root)." >&2
  exit 1
fi
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
export CGO_ENABLED=0
echo "ensure-helm: building helm $HELM_VERSION (once, a few minutes)..." >&2
mkdir -p "$cache.partial"
GOBIN="$cache.partial" go install -trimpath -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}" \
  "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}" >&2
rm -rf "$cache"
mv "$cache.partial" "$cache"
echo "$cache/helm"
