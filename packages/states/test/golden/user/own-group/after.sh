# the groups as the apply left them: who is listed as a member
getent group brine-og1 brine-og2
