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
$SUDO apt-get update -qq || exit 1
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null || exit 1
echo "deps: done"
