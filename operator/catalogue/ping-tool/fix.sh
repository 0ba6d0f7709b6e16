#!/bin/sh
# In the box, as root: run ping without a shell, the host as one argument after "--".
set -eu
sed -i 's/^        out = subprocess.run(command, shell=True,/        out = subprocess.run(["ping", "-c", "1", "-W", "1", "--", host],/' /opt/netdiag/app.py
grep -q '"--", host' /opt/netdiag/app.py
systemctl restart netdiag.service
