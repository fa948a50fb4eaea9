# the hashes as the run left them (brine-gp4's new one reuses the salt it had)
for u in brine-gp1 brine-gp3 brine-gp4; do getent shadow "$u" | cut -d: -f1,2; done
