/**
 * The Kubernetes API group of Exploit Grid's custom resources. `crds/*.yaml` is the
 * single source of truth for their schemas; these names must match it.
 */
export const API_GROUP = 'exploitgrid.io';
export const API_VERSION = 'v1alpha1';
export const API_GROUP_VERSION = `${API_GROUP}/${API_VERSION}` as const;

export const kinds = {
  box: { kind: 'Box', plural: 'boxes' },
  vpnPool: { kind: 'VpnPool', plural: 'vpnpools' },
} as const;
