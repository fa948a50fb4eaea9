# the throwaway accounts go
for g in brine-gx1 brine-gx2 brine-gx3; do groupdel "$g" >/dev/null 2>&1; done
for u in brine-gm1 brine-gm2; do userdel "$u" >/dev/null 2>&1; groupdel "$u" >/dev/null 2>&1; done
true
