#!/bin/sh
# In the box, as root: /etc/passwd is root's to write, and root is the only account with user ID 0.
set -eu
chmod 644 /etc/passwd
chown root:root /etc/passwd
awk -F: '$3 != 0 || $1 == "root"' /etc/passwd > /etc/passwd.new
cat /etc/passwd.new > /etc/passwd
rm -f /etc/passwd.new
