/** The VpnPool resource as crds/vpnpool.yaml defines it (defaults applied by the schema). */
import type { API_VERSION, Condition, ResourceMetadata } from '../box/types.ts';

export type Protocol = 'udp' | 'tcp';
export const PROTOCOLS: readonly Protocol[] = ['udp', 'tcp'];

export interface ServerSpec {
  replicas: number;
  port: number;
  clientSubnet: string;
  maxClients: number;
  serviceType: 'LoadBalancer' | 'NodePort' | 'ClusterIP';
}

export interface ServerStatus {
  readyReplicas?: number;
  /** Written by the API (its hooks' sessions), field manager exploit-grid-api. */
  clients?: number;
  maxClients?: number;
  address?: string;
  summary?: string;
}

export interface VpnPoolStatus {
  capacity?: 'AVAILABLE' | 'LIMITED' | 'FULL';
  clients?: number;
  udp?: ServerStatus;
  tcp?: ServerStatus;
  observedGeneration?: number;
  conditions?: Condition[];
}

export interface VpnPool {
  apiVersion: typeof API_VERSION;
  kind: 'VpnPool';
  metadata: ResourceMetadata;
  spec: {
    udp: ServerSpec;
    tcp: ServerSpec;
    thresholds: { limitedPercent: number; fullPercent: number };
    publicHost?: string;
    pkiSecretName?: string;
  };
  status?: VpnPoolStatus;
}
