#!/bin/sh
# Anonymous FTP on port 21 (vsftpd), uploads allowed in /incoming; a timer runs the batch files found there.
set -eu
id importer >/dev/null 2>&1 || useradd -r -m -d /var/lib/importer -s /bin/bash importer
id ftp >/dev/null 2>&1 || useradd -r -d /srv/ftp -s /usr/sbin/nologin ftp
install -d -m 755 /srv/ftp /srv/ftp/pub /etc/dropbox
install -d -o ftp -g importer -m 775 /srv/ftp/incoming
install -d -o importer -g importer -m 755 /var/lib/importer/done
install -m 644 readme.txt /srv/ftp/pub/readme.txt
install -m 644 vsftpd.conf /etc/dropbox/vsftpd.conf
install -m 755 import-batches /usr/local/bin/import-batches
install -m 644 dropbox.service import-batches.service import-batches.timer /etc/systemd/system/
systemctl daemon-reload
systemctl enable --now dropbox.service import-batches.timer
