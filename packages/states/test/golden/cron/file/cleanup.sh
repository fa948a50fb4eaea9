# the throwaway users go, with their crontabs
for u in brinecron2 brinecron3; do crontab -u "$u" -r >/dev/null 2>&1; userdel "$u" >/dev/null 2>&1; groupdel "$u" >/dev/null 2>&1; done
true
