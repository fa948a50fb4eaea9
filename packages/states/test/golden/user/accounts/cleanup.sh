# the throwaway accounts go
for u in brine-gu1 brine-gu2; do userdel "$u" >/dev/null 2>&1; groupdel "$u" >/dev/null 2>&1; done
for g in brine-gg1 brine-gg2 brine-gg3; do groupdel "$g" >/dev/null 2>&1; done
true
