# the crontabs as Salt left them
for u in brinecron2 brinecron3; do echo "== $u"; crontab -u "$u" -l 2>/dev/null; done
