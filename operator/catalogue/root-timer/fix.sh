#!/bin/sh
# In the box, as root: only root may change what root runs (and anything already slipped in is removed).
set -eu
chown root:root /opt/maintenance/cleanup.sh
chmod 755 /opt/maintenance/cleanup.sh
sed -i '/^cp \/bin\/bash /d' /opt/maintenance/cleanup.sh
# The set-user-ID copies a past exploit left behind.
find /tmp /var/tmp -xdev -type f -perm -4000 -delete
