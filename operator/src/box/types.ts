/** The Box resource as crds/box.yaml defines it (group exploitgrid.io, version v1alpha1). */

export const GROUP = 'exploitgrid.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

export interface BoxSpec {
  owner: { id: string; handle: string };
  hostname: string;
  power: 'On' | 'Off';
  image: string;
  resources: { memoryMiB: number; cpuMillis: number };
  features: { persistentIp: boolean };
  sshPublicKey?: string;
  /** Catalogue entries the box is given (operator/catalogue), installed at first boot. */
  loadout?: string[];
  /** A Secret with the keys rootPassword and agentToken. */
  secretRef: { name: string };
  /** The owner's current VPN addresses (the API keeps them from the VPN sessions). */
  ownerAddresses?: string[];
  attackWindows: { attackId: string; sourceAddress: string; until: string }[];
}

export type BoxPhase = 'Pending' | 'Provisioning' | 'Running' | 'Stopped' | 'Crashed';

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface BoxStatus {
  phase?: BoxPhase;
  ip?: string;
  openPorts?: Record<string, string>;
  reason?: string;
  observedGeneration?: number;
  conditions?: Condition[];
}

/** The metadata the controllers read of our resources (as the API server returns it). */
export interface ResourceMetadata {
  name: string;
  namespace: string;
  uid: string;
  generation?: number;
  resourceVersion?: string;
  finalizers?: string[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  deletionTimestamp?: Date;
}

/** A Box as read from the API server (defaults applied by the CRD's schema). */
export interface Box {
  apiVersion: typeof API_VERSION;
  kind: 'Box';
  metadata: ResourceMetadata;
  spec: BoxSpec;
  status?: BoxStatus;
}
