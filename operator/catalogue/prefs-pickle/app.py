#!/usr/bin/python3
"""Status board: the team's dashboard, with each visitor's preferences kept in a cookie."""
import base64
import html
import http.cookies
import pickle
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULTS = {"theme": "light", "refresh": 30}
PAGE = """<!doctype html>
<title>Status board</title>
<h1>Status board</h1>
<p>Theme: %s &middot; refresh every %s s</p>
<p><a href="/?theme=light">light</a> <a href="/?theme=dark">dark</a></p>
<ul><li>web: up</li><li>backups: up</li><li>mail: up</li></ul>
"""


def load(cookie):
    try:
        return pickle.loads(base64.b64decode(cookie))
    except Exception:
        return dict(DEFAULTS)


def dump(prefs):
    return base64.b64encode(pickle.dumps(prefs)).decode()


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        if url.path != "/":
            return self.send_error(404)
        jar = http.cookies.SimpleCookie(self.headers.get("Cookie", ""))
        prefs = load(jar["prefs"].value) if "prefs" in jar else dict(DEFAULTS)
        if not isinstance(prefs, dict):
            prefs = dict(DEFAULTS)
        theme = urllib.parse.parse_qs(url.query).get("theme", [None])[0]
        if theme:
            prefs["theme"] = theme[:40]
        data = (PAGE % (html.escape(str(prefs.get("theme"))), html.escape(str(prefs.get("refresh"))))).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Set-Cookie", "prefs=%s; Path=/; HttpOnly" % dump(prefs))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("", 8085), Handler).serve_forever()
