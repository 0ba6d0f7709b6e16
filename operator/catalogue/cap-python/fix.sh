#!/bin/sh
# In the box, as root: no file capability on an interpreter.
set -eu
setcap -r /usr/local/bin/pyreport
