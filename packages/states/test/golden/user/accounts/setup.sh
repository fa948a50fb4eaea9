# throwaway accounts with fixed ids (the same on every machine): two groups, no brine-gu* users
# yet (what a failed earlier run left is undone first)
for u in brine-gu1 brine-gu2; do userdel "$u" >/dev/null 2>&1; groupdel "$u" >/dev/null 2>&1; done
for g in brine-gg1 brine-gg2 brine-gg3; do groupdel "$g" >/dev/null 2>&1; done
groupadd -g 4301 brine-gg1
groupadd -g 4302 brine-gg2
groupadd -g 4303 brine-gg3
true
