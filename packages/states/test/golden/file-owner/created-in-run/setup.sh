# an existing directory and file (owned by root); none of the throwaway accounts exists yet
userdel brine-cu5 >/dev/null 2>&1; groupdel brine-cu5 >/dev/null 2>&1; groupdel brine-cg3 >/dev/null 2>&1
mkdir -p "$1/existing" && echo old > "$1/existing-file"
true
