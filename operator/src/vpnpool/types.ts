/** The VpnPool resource as crds/vpnpool.yaml defines it (defaults applied by the schema). */
import type { Condition } from '../box/types.ts';

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
  apiVersion: 'exploitgrid.io/v1alpha1';
  kind: 'VpnPool';
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    generation?: number;
    resourceVersion?: string;
    finalizers?: string[];
    deletionTimestamp?: Date;
  };
  spec: {
    udp: ServerSpec;
    tcp: ServerSpec;
    thresholds: { limitedPercent: number; fullPercent: number };
    publicHost?: string;
    pkiSecretName?: string;
  };
  status?: VpnPoolStatus;
}
