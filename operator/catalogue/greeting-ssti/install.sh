#!/bin/sh
# Greetings on port 8081, as www-data.
set -eu
install -d -m 755 /opt/greetings
install -m 644 app.py /opt/greetings/app.py
install -m 644 greetings.service /etc/systemd/system/greetings.service
systemctl daemon-reload
systemctl enable --now greetings.service
