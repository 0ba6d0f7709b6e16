/** The Box resource as crds/box.yaml defines it (group exploitgrid.io, version v1alpha1). */
import type { components } from '../generated/crds.ts';

export const GROUP = 'exploitgrid.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

/** What a Box asks for: generated from crds/box.yaml (defaults applied by the API server). */
export type BoxSpec = components['schemas']['BoxSpec'];
export type BoxStatus = components['schemas']['BoxStatus'];
export type BoxPhase = NonNullable<BoxStatus['phase']>;
/** A status condition, as the CRDs (and Kubernetes) define one. */
export type Condition = NonNullable<BoxStatus['conditions']>[number];

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
