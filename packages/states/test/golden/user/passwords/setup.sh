# throwaway accounts brine-gp* (what a failed earlier run left is undone first); brine-gp4
# exists beforehand with a known SHA-512 hash, whose salt hash_password must reuse
for u in brine-gp1 brine-gp2 brine-gp3 brine-gp4; do userdel "$u" >/dev/null 2>&1; groupdel "$u" >/dev/null 2>&1; done
rm -rf /home/brine-gp4
useradd -M -u 4314 brine-gp4
echo 'brine-gp4:$6$fixedsaltfixedsa$tH5ZrZasb8dK7bLdivFU0jTBBkj0ZgsALu9tpNxHi9RxUdeGd/iccFbXEv4KoSHcIkbMWyPYE02wMkQOikJST1' | chpasswd -e
true
