#!/usr/bin/python3
"""Greetings: a page that makes a greeting card for a name."""
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from jinja2 import Template

CARD = """<!doctype html>
<title>Greetings</title>
<div style="border: 2px dashed #c33; padding: 2em; font-family: serif">
  <h1>Hello %s!</h1>
  <p>Best wishes from all of us.</p>
</div>
"""


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        if url.path == "/":
            return self.reply('<form action="/hello"><input name="name"> <button>Make a card</button></form>')
        if url.path != "/hello":
            return self.send_error(404)
        name = urllib.parse.parse_qs(url.query).get("name", ["friend"])[0]
        self.reply(Template(CARD % name).render())

    def reply(self, body):
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("", 8081), Handler).serve_forever()
