# The same private SysV world as the offline case: one script makes both.
exec bash "$(dirname "$0")/../offline/setup.sh" "$@"
