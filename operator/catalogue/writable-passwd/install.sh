#!/bin/sh
# "So the helpdesk script can add accounts": /etc/passwd writable by everyone.
set -eu
chmod 666 /etc/passwd
