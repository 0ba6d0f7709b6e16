#!/usr/bin/env bash
# A kind cluster with KubeVirt (software emulation), CDI (the boxes' disks), Multus and the bridge CNI plugins, the
# platform's images built and loaded, PostgreSQL, and the chart installed. One node with kind's own
# CNI (kindnet, hack/kind/cluster.yaml): Multus adds the arena beside it, and on one node the arena
# bridge needs no VXLAN. Idempotent: run it again to rebuild the images and upgrade the release.
# Needs docker, kind, kubectl, helm and curl, on amd64.
# Not runnable where there is no container engine (the development machine here): CI runs it
# (.github/workflows/kind.yml), then hack/kind/smoke.sh.
#
#   hack/kind-up.sh                    → cluster "exploit-grid", namespace "exploit-grid"
#   SKIP_BOX_IMAGE=1 hack/kind-up.sh   (the box disk image takes the longest to build)
set -euo pipefail

CLUSTER=${CLUSTER:-exploit-grid}
NAMESPACE=${NAMESPACE:-exploit-grid}
KIND_NODE_IMAGE=kindest/node:v1.34.0
KUBEVIRT_VERSION=v1.9.0
CDI_VERSION=v1.62.0
MULTUS_VERSION=v4.2.2
CNI_PLUGINS_VERSION=v1.8.0
TAG=${TAG:-dev}
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

for tool in docker kind kubectl helm curl; do
  command -v "$tool" >/dev/null || { echo "kind-up: $tool is needed" >&2; exit 1; }
done

step() { echo "==> $*" >&2; }

if ! kind get clusters | grep -qx "$CLUSTER"; then
  step "creating the kind cluster $CLUSTER"
  kind create cluster --name "$CLUSTER" --image "$KIND_NODE_IMAGE" --config hack/kind/cluster.yaml --wait 120s
fi
kubectl config use-context "kind-$CLUSTER" >/dev/null

step "the bridge and static CNI plugins on every node"
# kind's node image has only the plugins kindnet uses (ptp, host-local, loopback, portmap).
plugins="${XDG_CACHE_HOME:-$HOME/.cache}/exploit-grid/cni-plugins-$CNI_PLUGINS_VERSION"
if [[ ! -x "$plugins/bridge" || ! -x "$plugins/static" ]]; then
  mkdir -p "$plugins"
  curl -fsSL "https://github.com/containernetworking/plugins/releases/download/$CNI_PLUGINS_VERSION/cni-plugins-linux-amd64-$CNI_PLUGINS_VERSION.tgz" \
    | tar -xz -C "$plugins" ./bridge ./static
fi
for node in $(kind get nodes --name "$CLUSTER"); do
  docker cp "$plugins/bridge" "$node:/opt/cni/bin/bridge"
  docker cp "$plugins/static" "$node:/opt/cni/bin/static"
done

step "Multus $MULTUS_VERSION"
kubectl apply -f "https://raw.githubusercontent.com/k8snetworkplumbingwg/multus-cni/$MULTUS_VERSION/deployments/multus-daemonset-thick.yml"
kubectl -n kube-system rollout status daemonset/kube-multus-ds --timeout=300s

step "KubeVirt $KUBEVIRT_VERSION (software emulation)"
kubectl apply -f "https://github.com/kubevirt/kubevirt/releases/download/$KUBEVIRT_VERSION/kubevirt-operator.yaml"
kubectl wait crd/kubevirts.kubevirt.io --for condition=Established --timeout=60s
kubectl apply -f hack/kind/kubevirt-cr.yaml
kubectl -n kubevirt wait kv/kubevirt --for condition=Available --timeout=900s

step "CDI $CDI_VERSION (the boxes' disks: DataVolumes imported from the box image)"
kubectl apply -f "https://github.com/kubevirt/containerized-data-importer/releases/download/$CDI_VERSION/cdi-operator.yaml"
kubectl wait crd/cdis.cdi.kubevirt.io --for condition=Established --timeout=60s
kubectl apply -f "https://github.com/kubevirt/containerized-data-importer/releases/download/$CDI_VERSION/cdi-cr.yaml"
kubectl wait cdi/cdi --for condition=Available --timeout=600s

step "building and loading the images (tag $TAG)"
docker build -f api/Dockerfile -t "exploit-grid/api:$TAG" .
docker build -f operator/Dockerfile -t "exploit-grid/operator:$TAG" .
docker build -t "exploit-grid/openvpn:$TAG" images/openvpn
images=("exploit-grid/api:$TAG" "exploit-grid/operator:$TAG" "exploit-grid/openvpn:$TAG")
if [[ -z "${SKIP_BOX_IMAGE:-}" ]]; then
  docker build -f images/box-debian/Dockerfile -t "exploit-grid/box-debian:bookworm" .
  images+=("exploit-grid/box-debian:bookworm")
fi
kind load docker-image --name "$CLUSTER" "${images[@]}"

step "PostgreSQL and the API's Secret"
kubectl create namespace "$NAMESPACE" --dry-run=client -o yaml | kubectl apply -f -
# The VPN servers (NET_ADMIN, /dev/net/tun) and the arena-isolation DaemonSet (hostNetwork).
kubectl label namespace "$NAMESPACE" pod-security.kubernetes.io/enforce=privileged --overwrite
kubectl -n "$NAMESPACE" apply -f hack/kind/postgres.yaml
kubectl -n "$NAMESPACE" rollout status statefulset/postgres --timeout=300s
if ! kubectl -n "$NAMESPACE" get secret exploit-grid-api >/dev/null 2>&1; then
  kubectl -n "$NAMESPACE" create secret generic exploit-grid-api \
    --from-literal=DATABASE_URL="postgres://exploitgrid:exploitgrid@postgres:5432/exploitgrid" \
    --from-literal=JWT_SECRET="$(head -c 48 /dev/urandom | base64 | tr -d '\n')"
fi

step "the chart"
helm upgrade --install exploit-grid charts/exploit-grid --namespace "$NAMESPACE" \
  --values hack/kind/values.yaml --set "images.api.tag=$TAG,images.operator.tag=$TAG,images.openvpn.tag=$TAG" \
  --wait --timeout 10m
kubectl -n "$NAMESPACE" get deployments,vpnpools,boxes
echo "kind-up: ready. The portal: kubectl -n $NAMESPACE port-forward svc/exploit-grid-api 3000" >&2
