/** The VpnPool resource as crds/vpnpool.yaml defines it (defaults applied by the schema). */
import type { API_VERSION, ResourceMetadata } from '../box/types.ts';
import type { components } from '../generated/crds.ts';

export type Protocol = 'udp' | 'tcp';
export const PROTOCOLS: readonly Protocol[] = ['udp', 'tcp'];

/** One protocol's servers; generated from crds/vpnpool.yaml (defaults applied by the API server). */
export type ServerSpec = components['schemas']['VpnPoolSpec']['udp'];
export type VpnPoolStatus = components['schemas']['VpnPoolStatus'];
export type ServerStatus = NonNullable<VpnPoolStatus['udp']>;

export interface VpnPool {
  apiVersion: typeof API_VERSION;
  kind: 'VpnPool';
  metadata: ResourceMetadata;
  spec: components['schemas']['VpnPoolSpec'];
  status?: VpnPoolStatus;
}
