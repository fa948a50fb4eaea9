# two throwaway users: brinecron2 without a crontab, brinecron3 with one
for u in brinecron2 brinecron3; do id "$u" >/dev/null 2>&1 || useradd -M -s /bin/sh "$u"; crontab -u "$u" -r >/dev/null 2>&1; done
printf '# own tab\n0 5 * * * /bin/true keep\n' | crontab -u brinecron3 -
true
