#!/bin/sh
# The status board on port 8085, as www-data; preferences travel in a cookie.
set -eu
install -d -m 755 /opt/status-board
install -m 644 app.py /opt/status-board/app.py
install -m 644 status-board.service /etc/systemd/system/status-board.service
systemctl daemon-reload
systemctl enable --now status-board.service
