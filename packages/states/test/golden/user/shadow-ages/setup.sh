# throwaway accounts brine-gs* (what a failed earlier run left is undone first)
for u in brine-gs1 brine-gs2; do userdel "$u" >/dev/null 2>&1; groupdel "$u" >/dev/null 2>&1; done
true
