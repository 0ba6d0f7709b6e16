#!/bin/sh
# In the box, as root: the name is data given to the template, never part of it.
set -eu
sed -i 's/^  <h1>Hello %s!<\/h1>$/  <h1>Hello {{ name }}!<\/h1>/; s/self.reply(Template(CARD % name).render())/self.reply(Template(CARD).render(name=name))/' /opt/greetings/app.py
grep -q 'render(name=name)' /opt/greetings/app.py
systemctl restart greetings.service
