#!/usr/bin/python3
"""Downloads: serves the release files of /srv/files."""
import os
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = "/srv/files"


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        if url.path == "/":
            names = sorted(os.listdir(ROOT))
            links = "".join(f'<li><a href="/download?file={n}">{n}</a></li>' for n in names)
            return self.reply(200, f"<!doctype html><title>Downloads</title><ul>{links}</ul>".encode(), "text/html")
        if url.path != "/download":
            return self.send_error(404)
        name = urllib.parse.parse_qs(url.query).get("file", [""])[0]
        path = os.path.join(ROOT, name)
        if not os.path.isfile(path):
            return self.send_error(404)
        with open(path, "rb") as f:
            self.reply(200, f.read(), "application/octet-stream")

    def reply(self, status, data, kind):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("", 8082), Handler).serve_forever()
