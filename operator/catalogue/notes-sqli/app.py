#!/usr/bin/python3
"""Notes: the team's public notes, searchable."""
import html
import sqlite3
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DATABASE = "/var/lib/notes/notes.db"


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        if url.path == "/":
            return self.reply('<form action="/search"><input name="q"> <button>Search</button></form>')
        if url.path != "/search":
            return self.send_error(404)
        q = urllib.parse.parse_qs(url.query).get("q", [""])[0]
        db = sqlite3.connect(DATABASE)
        try:
            query = "SELECT title, body FROM notes WHERE public = 1 AND title LIKE '%" + q + "%'"
            rows = db.execute(query).fetchall()
        except sqlite3.Error as e:
            return self.reply("<p>Search failed: %s</p>" % html.escape(str(e)))
        finally:
            db.close()
        items = "".join("<li><b>%s</b>: %s</li>" % (html.escape(str(t)), html.escape(str(b))) for t, b in rows)
        self.reply("<ul>%s</ul>" % items)

    def reply(self, body):
        data = ("<!doctype html><title>Notes</title>" + body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("", 8083), Handler).serve_forever()
