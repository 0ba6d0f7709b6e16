// Snapshots of a box (My Box, the tiers' slots; docs/boxes.md): loaded with the snapshot list only.
export const snapshotSlotsUsed = (used: number, slots: number) => `${used} of ${slots} slots used`;
export const SNAPSHOT_NAME = 'Snapshot name';
export const TAKE_SNAPSHOT = 'Take snapshot';
export const TAKING_SNAPSHOT = 'Saving...';
export const SNAPSHOTS_FULL = 'Every slot holds a snapshot: delete one to take another.';
export const NO_SNAPSHOTS = 'No snapshots yet.';
export const RESTORE_SNAPSHOT = 'Restore';
export const DELETE_SNAPSHOT = 'Delete';
export const restoreSnapshotLabel = (name: string) => `Restore snapshot ${name}`;
export const deleteSnapshotLabel = (name: string) => `Delete snapshot ${name}`;
export const SNAPSHOTS_LOAD_FAILED = 'Failed to load snapshots.';
export const TAKE_SNAPSHOT_FAILED = 'Failed to take snapshot.';
export const RESTORE_SNAPSHOT_FAILED = 'Failed to restore snapshot.';
export const DELETE_SNAPSHOT_FAILED = 'Failed to delete snapshot.';
export const RESTORE_DIALOG_TITLE = 'Restore this snapshot?';
export const RESTORE_DIALOG_TEXT =
  'Your box powers off and its disk is replaced by the snapshot’s, with the services it had then: everything changed since the snapshot was taken is lost.';
export const CONFIRM_RESTORE = 'Restore the snapshot';
export const DELETE_SNAPSHOT_DIALOG_TITLE = 'Delete this snapshot?';
export const DELETE_SNAPSHOT_DIALOG_TEXT = 'The snapshot is gone for good and its slot is free again.';
export const CONFIRM_DELETE_SNAPSHOT = 'Delete the snapshot';
/** Sizes of snapshots: KB, MB or GB, one decimal under ten. */
export const formatBytes = (bytes: number) => {
  const units = ['B', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value < 10 && unit > 0 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
};
