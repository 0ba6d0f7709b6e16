#!/bin/sh
# Shared files on port 8084, as www-data; the uploads folder runs .py and .cgi files as scripts.
set -eu
install -d -m 755 /opt/shared-files
install -m 644 app.py /opt/shared-files/app.py
install -d -m 755 /srv/shared
install -d -o www-data -g www-data -m 755 /srv/shared/uploads
[ -f /srv/shared/uploads/welcome.txt ] || install -o www-data -g www-data -m 644 welcome.txt /srv/shared/uploads/welcome.txt
install -m 644 shared-files.service /etc/systemd/system/shared-files.service
systemctl daemon-reload
systemctl enable --now shared-files.service
