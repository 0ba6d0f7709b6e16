#!/bin/sh
# "pyreport": Python for the report scripts, given cap_setuid so that they can read as any user.
set -eu
install -o root -g root -m 755 "$(readlink -f /usr/bin/python3)" /usr/local/bin/pyreport
setcap cap_setuid+ep /usr/local/bin/pyreport
getcap /usr/local/bin/pyreport | grep -q cap_setuid
