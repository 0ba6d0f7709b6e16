#!/bin/sh
# Removes old scratch files from /tmp and /var/tmp.
find /tmp /var/tmp -xdev -type f -name '*.old' -mmin +60 -delete 2>/dev/null || true
