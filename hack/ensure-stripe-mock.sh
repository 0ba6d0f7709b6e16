#!/usr/bin/env bash
# stripe-mock, Stripe's own mock of its API (the Go module github.com/stripe/stripe-mock, with the OpenAPI
# spec and fixtures built in), built from the Go module proxy at a pinned version, once. The API's payment
# tests point the real stripe SDK at it. Cached outside the repository in
# ${XDG_CACHE_HOME:-~/.cache}/exploit-grid/stripe-mock-<version>/; prints the binary's path.
#
#   hack/ensure-stripe-mock.sh            → prints the path of stripe-mock
set -euo pipefail

STRIPE_MOCK_VERSION=v0.203.0

cache="${XDG_CACHE_HOME:-$HOME/.cache}/exploit-grid/stripe-mock-${STRIPE_MOCK_VERSION}"
if [[ -x "$cache/stripe-mock" ]]; then
  echo "$cache/stripe-mock"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "ensure-stripe-mock: installing Go (once)..." >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends golang-go >&2 ||
      { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends golang-go >&2; }
  else
    echo "ensure-stripe-mock: Go is needed to build stripe-mock for the payment tests (install it, or run as root)." >&2
    exit 1
  fi
fi
# An older Go fetches the toolchain the module asks for (a Go module itself).
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
export CGO_ENABLED=0
echo "ensure-stripe-mock: building stripe-mock $STRIPE_MOCK_VERSION (once)..." >&2
rm -rf "$cache.partial"
mkdir -p "$cache.partial"
GOBIN="$cache.partial" GOFLAGS="-buildvcs=false" go install -trimpath -ldflags "-s -w" \
  "github.com/stripe/stripe-mock@${STRIPE_MOCK_VERSION}" >&2
"$cache.partial/stripe-mock" -version >&2 || true
rm -rf "$cache"
mv "$cache.partial" "$cache"
echo "$cache/stripe-mock"
