#!/bin/sh
# "Everyone may search the logs": find as root, for every user, without a password.
set -eu
printf '%s\n' '# Log search for everyone (the support team asked for it).' 'ALL ALL=(root) NOPASSWD: /usr/bin/find' \
  > /etc/sudoers.d/log-search
chmod 440 /etc/sudoers.d/log-search
visudo -cq
