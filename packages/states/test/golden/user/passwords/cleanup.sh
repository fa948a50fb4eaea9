# the throwaway accounts go
for u in brine-gp1 brine-gp2 brine-gp3 brine-gp4; do userdel "$u" >/dev/null 2>&1; groupdel "$u" >/dev/null 2>&1; done
rm -rf /home/brine-gp4 # Salt makes the missing home (createhome)
true
