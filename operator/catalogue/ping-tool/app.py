#!/usr/bin/python3
"""NetDiag: a page that pings a host, for whoever looks after this box's network."""
import html
import subprocess
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAGE = """<!doctype html>
<title>NetDiag</title>
<h1>NetDiag</h1>
<form action="/ping"><input name="host" placeholder="host or address"> <button>Ping</button></form>
<pre>%s</pre>
"""


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        if url.path == "/":
            return self.reply(PAGE % "")
        if url.path != "/ping":
            return self.send_error(404)
        host = urllib.parse.parse_qs(url.query).get("host", [""])[0]
        command = "ping -c 1 -W 1 " + host
        out = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=10)
        self.reply(PAGE % html.escape(out.stdout + out.stderr))

    def reply(self, body):
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("", 8080), Handler).serve_forever()
