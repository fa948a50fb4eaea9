R="$1"
for f in default none custom same; do printf 'auth required x.so\n@include common-auth\n' > "$R/$f.conf"; done
