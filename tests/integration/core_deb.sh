# make deb: the package builds, lintian finds no error in it, and dpkg
# itself installs it into a root folder: binaries, unit, man pages land and
# /etc/fabricd/fabricd.yaml is registered as a conffile; the Grafana
# dashboard and Prometheus rules land in /usr/share/fabricd/.
#
# What is honest here without a chroot of Debian: `dpkg --root=DIR --unpack`
# (the package has no preinst, so unpacking runs none of our scripts) puts
# every file in place and records it in DIR's dpkg database; the configure
# step (postinst: systemd-sysusers, systemd-tmpfiles, enabling and starting
# the unit) needs a booted system, so its scripts are read instead: they
# must create the groups and directories and enable and start fabricd.
# Built once, against the plain build: the ASan pass would build the same
# package again for nothing.
. "$FABRICD_SRC/tests/lib/common.sh"
fd_setup
case $FABRICD_BUILD in *-san) skip "the package is checked by the plain pass" ;; esac
for c in dpkg-buildpackage dh lintian fakeroot; do
	command -v "$c" >/dev/null || fail "$c not installed (make deps installs it)"
done

# LINTIAN=true: make deb's own lintian run is the one below, not a second
DEB_BUILD_OPTIONS="parallel=2 noddebs" make -s -C "$FABRICD_SRC" O="$T/b" FABRICD_NO_DEPS=1 LINTIAN=true deb \
    >"$T/deb.log" 2>&1 || fail "make deb: $(tail -15 "$T/deb.log")"
deb=$(ls "$T"/b/deb/fabricd_*.deb 2>/dev/null | head -1)
[ -f "$deb" ] || fail "make deb made no package: $(tail -5 "$T/deb.log")"
out=$(lintian --fail-on error "$deb" 2>&1) || fail "lintian: $out"
printf '%s\n' "$out" | grep -q '^E:' && fail "lintian errors: $out"

R="$T/root"
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates"
: > "$R/var/lib/dpkg/status"
: > "$R/var/lib/dpkg/available"
dpkg --root="$R" --force-depends --unpack "$deb" >"$T/dpkg.log" 2>&1 ||
    fail "dpkg --unpack: $(cat "$T/dpkg.log")"
for f in usr/sbin/fabricd usr/bin/fabricctl lib/systemd/system/fabricd.service \
    usr/lib/sysusers.d/fabricd.conf usr/lib/tmpfiles.d/fabricd.conf \
    usr/share/man/man8/fabricd.8.gz usr/share/man/man8/fabricctl.8.gz \
    usr/share/man/man5/fabricd.yaml.5.gz usr/share/doc/fabricd/examples/fabricd.yaml \
    usr/share/bash-completion/completions/fabricctl \
    usr/share/fabricd/grafana/fabricd.json usr/share/fabricd/prometheus/fabricd-rules.yml \
    usr/lib/fabricd/slurm/prolog-slurmctld usr/lib/fabricd/slurm/epilog-slurmctld \
    usr/lib/fabricd/slurm/prolog usr/lib/fabricd/slurm/task-prolog usr/lib/fabricd/slurm/epilog \
    usr/lib/fabricd/slurm/common.sh; do
	[ -f "$R/$f" ] || fail "the package did not install /$f"
	dpkg --root="$R" -S "/$f" >/dev/null 2>&1 || fail "/$f is not in dpkg's database"
done
# A new conffile waits as .dpkg-new until the configure step moves it.
dpkg-query --admindir="$R/var/lib/dpkg" -W -f='${Conffiles}\n' fabricd |
    grep -q '^ /etc/fabricd/fabricd.yaml ' || fail "/etc/fabricd/fabricd.yaml is not a conffile"
[ -f "$R/etc/fabricd/fabricd.yaml.dpkg-new" ] || fail "the conffile was not unpacked"
grep -q '^ExecStart=/usr/sbin/fabricd ' "$R/lib/systemd/system/fabricd.service" ||
    fail "the unit does not run /usr/sbin/fabricd"
out=$("$R/usr/sbin/fabricd" -n -c "$R/etc/fabricd/fabricd.yaml.dpkg-new" 2>&1) ||
    fail "the packaged configuration fails fabricd -n: $out"

dpkg-deb -e "$deb" "$T/ctl"
for want in systemd-sysusers systemd-tmpfiles 'deb-systemd-helper.* enable' \
    '_dh_action=start' 'deb-systemd-invoke'; do
	grep -q "$want" "$T/ctl/postinst" || fail "postinst lacks $want"
done
pass
