#!/bin/sh
# A job queue on port 6379 (Redis, no password, every address) and a worker that runs what it is given, as jobs.
set -eu
id jobs >/dev/null 2>&1 || useradd -r -m -d /var/lib/jobs -s /bin/bash jobs
install -d -m 755 /etc/jobs /opt/jobs
install -m 644 redis.conf /etc/jobs/redis.conf
install -m 644 worker.py /opt/jobs/worker.py
install -m 644 jobs-redis.service jobs-worker.service /etc/systemd/system/
systemctl daemon-reload
systemctl enable --now jobs-redis.service jobs-worker.service
