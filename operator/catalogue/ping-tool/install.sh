#!/bin/sh
# NetDiag on port 8080, as www-data.
set -eu
install -d -m 755 /opt/netdiag
install -m 644 app.py /opt/netdiag/app.py
install -m 644 netdiag.service /etc/systemd/system/netdiag.service
# An unprivileged ping uses ICMP datagram sockets (a box's root cannot use ping's file capability);
# every group of the box (a container maps 65,536 IDs) may open them.
echo 'net.ipv4.ping_group_range = 0 65535' > /etc/sysctl.d/60-netdiag.conf
sysctl -q -p /etc/sysctl.d/60-netdiag.conf
systemctl daemon-reload
systemctl enable --now netdiag.service
