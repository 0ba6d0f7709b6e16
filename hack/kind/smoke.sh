#!/usr/bin/env bash
# After hack/kind-up.sh: a Box made by hand becomes a KubeVirt VM on a disk of its own, leaves Pending and
# runs; the operator prepares a spare disk, and a Box with its loadout takes it and runs; the VPN pool
# reports its servers. Exits non-zero with what it saw when something is missing.
set -euo pipefail
NAMESPACE=${NAMESPACE:-exploit-grid}
k() { kubectl -n "$NAMESPACE" "$@"; }
show() {
  k get boxes,vpnpools,virtualmachines,vmi,datavolumes,pods -o wide || true
  k describe box box-smoke || true
}
fail() { echo "smoke: $*" >&2; show >&2; exit 1; }
# A Box as the API writes one, with its Secret: box <handle> <last hex digits of its ids> [loadout as a JSON list]
box() {
  local handle=$1 n=$2 loadout=${3:-[]}
  k create secret generic "box-$handle-secrets" --from-literal=rootPassword="$handle-pass" \
    --from-literal=agentToken="$handle-token" --dry-run=client -o yaml | k apply -f -
  k apply -f - <<BOX
apiVersion: exploitgrid.io/v1alpha1
kind: Box
metadata:
  name: box-$handle
  labels: { exploitgrid.io/box-id: 00000000-0000-4000-8000-0000000000$n }
spec:
  owner: { id: 00000000-0000-4000-8000-0000000000$n, handle: $handle }
  hostname: $handle-box
  power: "On"
  loadout: $loadout
  secretRef: { name: box-$handle-secrets }
BOX
}

box smoke aa

for _ in $(seq 60); do k get virtualmachine box-smoke >/dev/null 2>&1 && break; sleep 5; done
k get virtualmachine box-smoke >/dev/null 2>&1 || fail "no VirtualMachine box-smoke after 5 minutes"

phase=""
for _ in $(seq 60); do
  phase=$(k get box box-smoke -o jsonpath='{.status.phase}')
  [[ -n "$phase" && "$phase" != Pending ]] && break
  sleep 5
done
[[ -n "$phase" && "$phase" != Pending ]] || fail "box-smoke is still ${phase:-without a phase}"
echo "smoke: box-smoke left Pending ($phase)"

for _ in $(seq 120); do
  phase=$(k get box box-smoke -o jsonpath='{.status.phase}')
  [[ "$phase" == Running || "$phase" == Crashed ]] && break
  sleep 5
done
[[ "$phase" == Running ]] || fail "box-smoke is $phase, not Running"

[[ "$(k get box box-smoke -o jsonpath='{.metadata.annotations.exploitgrid\.io/disk}')" == box-smoke-disk ]] \
  || fail "box-smoke has no disk of its own"

spare=""
for _ in $(seq 180); do
  spare=$(k get datavolumes -l exploitgrid.io/spare-state=ready -o jsonpath='{.items[0].metadata.name}')
  [[ -n "$spare" ]] && break
  sleep 5
done
[[ -n "$spare" ]] || fail "no spare prepared after 15 minutes"
loadout=$(k get datavolume "$spare" -o jsonpath='{.metadata.annotations.exploitgrid\.io/loadout}')
echo "smoke: spare $spare prepared with $loadout"
box spare bb "$loadout"
for _ in $(seq 120); do
  phase=$(k get box box-spare -o jsonpath='{.status.phase}')
  [[ "$phase" == Running || "$phase" == Crashed ]] && break
  sleep 5
done
[[ "$phase" == Running ]] || fail "box-spare is ${phase:-without a phase}, not Running"
[[ "$(k get box box-spare -o jsonpath='{.metadata.annotations.exploitgrid\.io/disk}')" == "$spare" ]] \
  || fail "box-spare did not take the spare $spare"
echo "smoke: box-spare took the spare $spare and runs"

k get vpnpools
ready=""
for _ in $(seq 60); do
  ready=$(k get vpnpool arena -o jsonpath='{.status.udp.readyReplicas}')
  [[ "$ready" == 1 ]] && break
  sleep 5
done
[[ "$ready" == 1 ]] || fail "no UDP server of the pool arena is ready"
show
echo "smoke: a Box ran as a VM, another on a prepared spare; the VPN pool is ready"
