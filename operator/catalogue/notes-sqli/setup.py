#!/usr/bin/python3
"""Creates the notes database with the team's notes and accounts; the ops password is given as argv[1]."""
import sqlite3
import sys

db = sqlite3.connect("/var/lib/notes/notes.db")
db.executescript(
    """
    DROP TABLE IF EXISTS notes;
    DROP TABLE IF EXISTS users;
    CREATE TABLE notes (title TEXT, body TEXT, public INTEGER);
    CREATE TABLE users (name TEXT, password TEXT);
    INSERT INTO notes VALUES ('Welcome', 'Welcome to the team! Read the on-call notes first.', 1);
    INSERT INTO notes VALUES ('On call', 'Restart the notes service with systemctl when it hangs.', 1);
    INSERT INTO notes VALUES ('Salaries', 'Not for everyone.', 0);
    """
)
db.execute("INSERT INTO users VALUES ('ops', ?)", (sys.argv[1],))
db.commit()
db.close()
