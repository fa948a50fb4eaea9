# the throwaway accounts go
for u in brine-cu1 brine-cu2 brine-cu3 brine-cu4; do userdel "$u" >/dev/null 2>&1; groupdel "$u" >/dev/null 2>&1; done
for g in brine-cg1 brine-cg2; do groupdel "$g" >/dev/null 2>&1; done
true
