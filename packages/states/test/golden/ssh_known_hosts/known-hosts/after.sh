# what Salt left, host by host (hashed entries read back through ssh-keygen -F), and the mode
for h in alpha beta gamma delta; do
  echo "$h: $(ssh-keygen -F "$h" -f "$1/known_hosts" 2>/dev/null | grep -v '^#' | awk '{print $2, $3}' | tr '\n' ' ')"
done
stat -c '%a' "$1/known_hosts"
