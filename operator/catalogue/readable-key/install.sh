#!/bin/sh
# Root's key for the backup host, and a copy of it in the backups, readable by everyone.
set -eu
install -d -m 700 /root/.ssh
[ -f /root/.ssh/backup_ed25519 ] || ssh-keygen -q -t ed25519 -N '' -C root@backup -f /root/.ssh/backup_ed25519
grep -qF "$(cut -d' ' -f2 /root/.ssh/backup_ed25519.pub)" /root/.ssh/authorized_keys 2>/dev/null \
  || cat /root/.ssh/backup_ed25519.pub >> /root/.ssh/authorized_keys
chmod 600 /root/.ssh/authorized_keys
install -d -m 755 /var/backups/keys
install -m 644 /root/.ssh/backup_ed25519 /var/backups/keys/root_backup_ed25519
