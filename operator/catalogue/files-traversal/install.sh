#!/bin/sh
# Downloads on port 8082, run as the deploy account, which also logs in over ssh with its own key.
set -eu
id deploy >/dev/null 2>&1 || useradd -m -s /bin/bash deploy
install -d -o deploy -g deploy -m 700 /home/deploy/.ssh
[ -f /home/deploy/.ssh/id_ed25519 ] || su deploy -c "ssh-keygen -q -t ed25519 -N '' -C deploy@release -f /home/deploy/.ssh/id_ed25519"
install -o deploy -g deploy -m 600 /home/deploy/.ssh/id_ed25519.pub /home/deploy/.ssh/authorized_keys
install -d -m 755 /opt/downloads /srv/files
install -m 644 app.py /opt/downloads/app.py
install -m 644 readme.txt /srv/files/readme.txt
install -m 644 downloads.service /etc/systemd/system/downloads.service
systemctl daemon-reload
systemctl enable --now downloads.service
