#!/bin/sh
# A support account for the helpdesk, with a password someone picked in a hurry.
set -eu
id support >/dev/null 2>&1 || useradd -m -s /bin/bash -c "Helpdesk support" support
password="$(shuf -n 1 -e support support123 helpdesk Welcome1 changeme Passw0rd letmein qwerty123)"
echo "support:$password" | chpasswd
