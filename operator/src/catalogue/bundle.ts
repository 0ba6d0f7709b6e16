import { existsSync } from 'node:fs';
import path from 'node:path';
import { CATALOGUE_DIR, CATALOGUE_ID, installFiles } from './catalogue.ts';

/** Where a box is given its loadout, one directory per entry; emptied by the installer at first boot. */
export const LOADOUT_DIR = '/var/lib/exploit-grid/loadout';
export const LOADOUT_INSTALLER = '/usr/local/sbin/exploit-grid-loadout';
export const LOADOUT_SERVICE = 'exploit-grid-loadout.service';
export const LOADOUT_UNIT = `/etc/systemd/system/${LOADOUT_SERVICE}`;

/**
 * Runs each entry's install script from its directory, then removes the directory: what a box
 * keeps of its loadout is what the entries installed, not the scripts that say how. An entry
 * that fails is logged (the journal) and the others still run.
 */
export const LOADOUT_INSTALLER_SCRIPT = `#!/bin/sh
# Installs this box's services once, at its first boot (Exploit Grid).
set -u
dir=${LOADOUT_DIR}
for entry in "$dir"/*/; do
  [ -f "$entry/install.sh" ] || continue
  name=$(basename "$entry")
  if (cd "$entry" && sh ./install.sh); then
    echo "installed $name"
  else
    echo "could not install $name" >&2
  fi
  rm -rf "$entry"
done
rm -rf "$dir"
`;

/** The local runtime's first-boot unit (KubeVirt boxes run the installer from cloud-init instead). */
export const LOADOUT_UNIT_FILE = `[Unit]
Description=Install this box's services (first boot)
ConditionPathIsDirectory=${LOADOUT_DIR}
After=network.target

[Service]
Type=oneshot
ExecStart=${LOADOUT_INSTALLER}
RemainAfterExit=no

[Install]
WantedBy=multi-user.target
`;

export interface BoxFile {
  /** Absolute path inside the box. */
  path: string;
  mode: number;
  content: Buffer;
}

/**
 * The files that give a box its loadout: each entry's install files under LOADOUT_DIR/<n>/ (only
 * root can read them: some are secrets the entry plants, such as a service account's key) and the
 * installer. Each runtime adds how the installer is started. An id the catalogue no longer has (an entry
 * renamed or retired after the box drew it) is left out and named in `missing`: the box still boots with the
 * rest.
 */
export function loadoutFiles(
  ids: readonly string[],
  dir = CATALOGUE_DIR,
  missing: (id: string) => void = () => undefined,
): BoxFile[] {
  const known = ids.filter((id) => {
    const there = CATALOGUE_ID.test(id) && existsSync(path.join(dir, id, 'install.sh'));
    if (!there) missing(id);
    return there;
  });
  if (known.length === 0) return [];
  const files: BoxFile[] = [];
  // Numbered, not named: an owner who looks before the installer ran learns nothing from the names.
  known.forEach((id, i) => {
    const entryDir = path.posix.join(LOADOUT_DIR, String(i + 1).padStart(2, '0'));
    for (const [relative, content] of installFiles(id, dir))
      files.push({ path: path.posix.join(entryDir, relative), mode: 0o600, content });
  });
  files.push({ path: LOADOUT_INSTALLER, mode: 0o755, content: Buffer.from(LOADOUT_INSTALLER_SCRIPT) });
  return files;
}
