#!/bin/sh
# In the box, as root: no rule that hands out a program able to run others.
set -eu
rm -f /etc/sudoers.d/log-search
