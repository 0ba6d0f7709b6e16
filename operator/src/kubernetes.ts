/**
 * What the API's kubernetes adapter shares with the operator (package export `./kubernetes`):
 * the resources' types and names, the watch and client helpers.
 */
export { Informer, customResourceInformer } from './controller/informer.ts';
export { BOX_RESOURCE } from './box/controller.ts';
export { VPNPOOL_RESOURCE } from './vpnpool/controller.ts';
export { Kube, reuseConnections } from './controller/kube.ts';
export { describeError, statusOf } from './controller/errors.ts';
export { ANNOTATIONS, LABELS, MANAGER } from './box/builders.ts';
export * from './box/types.ts';
export {
  DATA_VOLUME_RESOURCE,
  DEFAULT_BOX_IMAGE,
  DISK_ANNOTATIONS,
  VOLUME_SNAPSHOT_API_VERSION,
  createdAt,
  quantityBytes,
  type DataVolume,
} from './box/disk.ts';
export { SPARE_STATE, spareLoadoutOf } from './box/spares.ts';
export { pkiSecretName, serviceName, vpnServerName } from './vpnpool/builders.ts';
export type { VpnPool, VpnPoolStatus, Protocol } from './vpnpool/types.ts';
export * from './vpnpool/checks.ts';
