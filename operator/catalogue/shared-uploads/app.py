#!/usr/bin/python3
"""Shared files: paste a file, get a link to share it. The uploads folder also runs the team's small .py tools."""
import html
import os
import urllib.parse
from http.server import CGIHTTPRequestHandler, ThreadingHTTPServer

ROOT = "/srv/shared"
UPLOADS = os.path.join(ROOT, "uploads")
PAGE = """<!doctype html>
<title>Shared files</title>
<h1>Shared files</h1>
<form method="post" action="/upload">
<p><input name="name" placeholder="notes.txt"></p>
<p><textarea name="content" rows="8" cols="60"></textarea></p>
<p><button>Upload</button></p>
</form>
%s
"""


class Handler(CGIHTTPRequestHandler):
    # Tools run through subprocess, with Python for .py files (no need for them to be executable).
    have_fork = False

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=ROOT, **kwargs)

    def is_cgi(self):
        # "Tools" dropped in uploads run as scripts, like ExecCGI on an upload folder.
        path = urllib.parse.urlparse(self.path).path
        if path.startswith("/uploads/") and path.endswith((".py", ".cgi")):
            self.cgi_info = "/uploads", self.path[len("/uploads/"):]
            return True
        return False

    def do_GET(self):
        if urllib.parse.urlparse(self.path).path == "/":
            files = sorted(os.listdir(UPLOADS))
            items = "".join('<li><a href="/uploads/%s">%s</a></li>' % (urllib.parse.quote(f), html.escape(f)) for f in files)
            return self.reply(PAGE % ("<ul>%s</ul>" % items))
        return super().do_GET()

    def do_POST(self):
        if urllib.parse.urlparse(self.path).path != "/upload":
            return super().do_POST()
        length = min(int(self.headers.get("Content-Length") or 0), 1 << 20)
        form = urllib.parse.parse_qs(self.rfile.read(length).decode("utf-8", "replace"))
        name = os.path.basename(form.get("name", [""])[0].strip())
        content = form.get("content", [""])[0]
        if not name or name.startswith("."):
            return self.reply(PAGE % "<p>Give the file a name.</p>", 400)
        with open(os.path.join(UPLOADS, name), "w") as f:
            f.write(content)
        link = "/uploads/" + urllib.parse.quote(name)
        self.reply(PAGE % ('<p>Saved <a href="%s">%s</a>:</p><pre>%s</pre>' % (link, html.escape(name), html.escape(content[:2000]))))

    def reply(self, body, status=200):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("", 8084), Handler).serve_forever()
