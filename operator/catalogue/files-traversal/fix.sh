#!/bin/sh
# In the box, as root: only files inside /srv/files are served; the key that leaked is replaced.
set -eu
sed -i 's|^        path = os.path.join(ROOT, name)$|        path = os.path.realpath(os.path.join(ROOT, name))\n        path = path if path.startswith(ROOT + "/") else ""|' /opt/downloads/app.py
grep -q 'path.startswith(ROOT + "/")' /opt/downloads/app.py
rm -f /home/deploy/.ssh/id_ed25519 /home/deploy/.ssh/id_ed25519.pub
su deploy -c "ssh-keygen -q -t ed25519 -N '' -C deploy@release -f /home/deploy/.ssh/id_ed25519"
install -o deploy -g deploy -m 600 /home/deploy/.ssh/id_ed25519.pub /home/deploy/.ssh/authorized_keys
systemctl restart downloads.service
