#!/bin/sh
# In the box, as root: the search term is a parameter, never SQL; the password that leaked is changed.
set -eu
sed -i "s|^            query = \"SELECT title, body FROM notes WHERE public = 1 AND title LIKE '%\" + q + \"%'\"$|            query = \"SELECT title, body FROM notes WHERE public = 1 AND title LIKE ?\"|; s|^            rows = db.execute(query).fetchall()$|            rows = db.execute(query, (\"%\" + q + \"%\",)).fetchall()|" /opt/notes/app.py
grep -q 'LIKE ?"' /opt/notes/app.py
echo "ops:$(head -c 12 /dev/urandom | base64 | tr -d '/+=')" | chpasswd
systemctl restart notes.service
