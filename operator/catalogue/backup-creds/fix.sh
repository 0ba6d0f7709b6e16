#!/bin/sh
# In the box, as root: the configuration is root's alone, and the password that anyone could read is replaced.
set -eu
chown root:root /etc/backup/backup.conf
chmod 600 /etc/backup/backup.conf
password="$(head -c 12 /dev/urandom | base64 | tr -d '/+=')"
echo "svc-backup:$password" | chpasswd
sed -i "s|^password *=.*|password = $password|" /etc/backup/backup.conf
