# The mount points and a private fstab under ROOT; the mounts themselves are made in ns.sh,
# inside the case's own mount namespace.
set -eu
R="$1"
mkdir -p "$R/same" "$R/grow" "$R/later" "$R/gone" "$R/already" "$R/fresh" "$R/plain"
cat > "$R/fstab" <<FSTAB
# a comment stays
tmpfs		$R/same	tmpfs	size=1m	0 0
tmpfs		$R/grow	tmpfs	size=1m,mode=755	0 0
tmpfs		$R/gone	tmpfs	defaults	0 0
FSTAB
