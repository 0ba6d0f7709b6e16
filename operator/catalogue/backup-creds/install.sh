#!/bin/sh
# The nightly backup's account and its configuration, readable by everyone "so the job can read it".
set -eu
id svc-backup >/dev/null 2>&1 || useradd -m -s /bin/bash svc-backup
password="$(head -c 12 /dev/urandom | base64 | tr -d '/+=')"
echo "svc-backup:$password" | chpasswd
install -d -m 755 /etc/backup
sed "s|@PASSWORD@|$password|" backup.conf.in > /etc/backup/backup.conf
chmod 644 /etc/backup/backup.conf
echo 'svc-backup ALL=(ALL) ALL' > /etc/sudoers.d/backup
chmod 440 /etc/sudoers.d/backup
visudo -cq
