# none of the throwaway accounts exists yet: this run creates them
for u in brine-og1 brine-og2; do userdel "$u" >/dev/null 2>&1; groupdel "$u" >/dev/null 2>&1; done
true
