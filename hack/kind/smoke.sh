#!/usr/bin/env bash
# After hack/kind-up.sh: a Box made by hand becomes a KubeVirt VM that the operator reports on,
# the pool reports its servers. Exits non-zero with what it saw when something is missing.
set -euo pipefail
NAMESPACE=${NAMESPACE:-exploit-grid}
k() { kubectl -n "$NAMESPACE" "$@"; }
k create secret generic box-smoke-secrets --from-literal=rootPassword=smoke-pass --from-literal=agentToken=smoke-token \
  --dry-run=client -o yaml | k apply -f -
k apply -f - <<'BOX'
apiVersion: exploitgrid.io/v1alpha1
kind: Box
metadata: { name: box-smoke }
spec:
  owner: { id: 00000000-0000-4000-8000-000000000001, handle: smoke }
  hostname: smoke-box
  power: "On"
  secretRef: { name: box-smoke-secrets }
BOX
for _ in $(seq 60); do k get virtualmachine box-smoke >/dev/null 2>&1 && break; sleep 5; done
k get virtualmachine box-smoke
phase=""
for _ in $(seq 120); do
  phase=$(k get box box-smoke -o jsonpath='{.status.phase}')
  [[ "$phase" == Running ]] && break
  sleep 5
done
k get boxes,vpnpools,virtualmachines,vmi -o wide
[[ "$phase" == Running ]] || { echo "smoke: box-smoke is $phase, not Running" >&2; k describe box box-smoke >&2; exit 1; }
k get vpnpool arena -o jsonpath='{.status.udp.readyReplicas}' | grep -qx 1 || { echo "smoke: no UDP server ready" >&2; exit 1; }
echo "smoke: a Box ran as a VM; the VPN pool is ready"
