#!/bin/sh
# Notes on port 8083, as its own user; the ops account's password sits in its users table, in clear.
set -eu
id notes >/dev/null 2>&1 || useradd -r -s /usr/sbin/nologin notes
id ops >/dev/null 2>&1 || useradd -m -s /bin/bash ops
password="$(head -c 12 /dev/urandom | base64 | tr -d '/+=')"
echo "ops:$password" | chpasswd
install -d -o notes -g notes -m 750 /var/lib/notes
install -d -m 755 /opt/notes
install -m 644 app.py /opt/notes/app.py
python3 setup.py "$password"
chown notes:notes /var/lib/notes/notes.db
chmod 640 /var/lib/notes/notes.db
install -m 644 notes.service /etc/systemd/system/notes.service
systemctl daemon-reload
systemctl enable --now notes.service
