#!/usr/bin/python3
"""Job worker: takes jobs off the `jobs` list in Redis and runs them ("rotate-logs", "du -sh /var/log", ...)."""
import subprocess
import time

import redis

queue = redis.Redis(host="127.0.0.1", port=6379, decode_responses=True)
while True:
    try:
        item = queue.blpop("jobs", timeout=5)
    except redis.exceptions.ConnectionError:
        time.sleep(1)
        continue
    if item is None:
        continue
    job = item[1]
    result = subprocess.run(job, shell=True, capture_output=True, text=True, timeout=60)
    queue.lpush("results", "%s => %d" % (job, result.returncode))
    queue.ltrim("results", 0, 99)
