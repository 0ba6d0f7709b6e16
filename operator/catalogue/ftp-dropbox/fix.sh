#!/bin/sh
# In the box, as root: anonymous users may download, not upload; what was dropped already is not run.
set -eu
sed -i 's/^write_enable=YES$/write_enable=NO/; s/^anon_upload_enable=YES$/anon_upload_enable=NO/' /etc/dropbox/vsftpd.conf
grep -q '^anon_upload_enable=NO$' /etc/dropbox/vsftpd.conf
systemctl restart dropbox.service
systemctl disable --now import-batches.timer
rm -f /srv/ftp/incoming/*.job
