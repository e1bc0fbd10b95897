#!/bin/sh
# Install the Debian packages named on the command line that are missing.
# Quiet when everything is present; runs apt-get update only when a package
# must actually be fetched.  Used by `make deps` (and so by make, check, demo).
missing=""
for p in "$@"; do
	s=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
	[ "$s" = "installed" ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
# Packages whose postinst starts a service through invoke-rc.d (munge,
# slurmctld, slurmd) would leave a daemon running, or fail the install
# where there is no init to ask (a container): while installing, a
# policy-rc.d that refuses every action (101), unless one is there already.
policy=/usr/sbin/policy-rc.d
ours=""
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\n# fabricd tools/deps.sh: no service starts while installing\nexit 101\n' |
	    $SUDO tee "$policy" >/dev/null && $SUDO chmod 755 "$policy" && ours=1
fi
trap '[ -n "$ours" ] && $SUDO rm -f "$policy"' EXIT
trap 'exit 1' INT TERM
rc=0
# shellcheck disable=SC2086
$SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null || rc=1
[ $rc -eq 0 ] || exit 1
echo "deps: done"
