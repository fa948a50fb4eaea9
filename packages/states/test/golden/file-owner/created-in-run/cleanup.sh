# the throwaway accounts go
userdel brine-cu5 >/dev/null 2>&1; groupdel brine-cu5 >/dev/null 2>&1; groupdel brine-cg3 >/dev/null 2>&1
true
