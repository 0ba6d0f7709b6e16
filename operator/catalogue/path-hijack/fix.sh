#!/bin/sh
# In the box, as root: root's job trusts only directories root alone may write; what others put there goes.
set -eu
sed -i 's|^PATH=/opt/reports/bin:|PATH=|' /usr/local/sbin/rotate-reports
find /opt/reports/bin -mindepth 1 -delete
chmod 755 /opt/reports/bin
find /tmp /var/tmp -xdev -type f -perm -4000 -delete
