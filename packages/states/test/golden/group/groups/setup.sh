# throwaway accounts with fixed ids: two users to be members, no brine-gx* groups yet
for g in brine-gx1 brine-gx2 brine-gx3; do groupdel "$g" >/dev/null 2>&1; done
for u in brine-gm1 brine-gm2; do userdel "$u" >/dev/null 2>&1; groupdel "$u" >/dev/null 2>&1; done
groupadd -g 4401 brine-gm1 && useradd -M -u 4401 -g 4401 -d /nonexistent brine-gm1
groupadd -g 4402 brine-gm2 && useradd -M -u 4402 -g 4402 -d /nonexistent brine-gm2
true
