#!/bin/sh
# M_Key on LID-routed SMPs: an SMP fabricd sends by LID carries the M_Key
# of the port at its DLID (a switch: its port 0's), not zero and not
# another port's (sm/core/mkey.c, sm_mkey_port_of's LID branch, through
# the engine's mad_engine_set_mkey).  sm_mkey.sh judges the directed SMPs;
# a master sends none by LID.  A standby told by a master to follow it
# (SubnSet(SMInfo) STANDBY) polls that SM at the LID the Set came from when
# its model does not hold the sender's port (sm/core/standby.c,
# follow_sender): those are the LID-routed SMPs judged here.
#
# Two fabricd SMs with one M_Key secret: A on host1 is master and gives
# every port its key, then hands over to B on host2 (its priority raised,
# as sm_standby_pair.sh) and keeps its model as standby.  tools/smi_set on
# host3 (a raw client as another SM) tells A to DISABLE, then to STANDBY
# under an SM that is not in A's model: A polls host3's LID.  What each
# port holds is read from both SMs' PortInfo Sets that protect it (the
# madlog double below their umad calls, tests/fixtures/mad/madlog.c:
# ibsim keeps no M_Key, smpquery reads 0), the port each Set's directed
# route reaches from smpquery nodeinfo from that SM's host, and port LIDs
# from ibnetdiscover.  Every LID-routed SubnGet/SubnSet in A's log must
# carry exactly the key written to the port at its DLID.
# Seen failing: with sm_mkey_port_of() taking the SM's own port for a LID,
# A's polls to host3 carried host1's key.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup smpquery ibnetdiscover sminfo
SECRET=fabricd-test-secret-lid-routed

sim_topology -k 4 -h 2 -s 2 || fail topogen
sim_start || fail "ibsim"
A_GUID=$(sm_guid_of host1)
B_GUID=$(sm_guid_of host2)
fd_config "sm:
  enabled: true
  priority: 5
  sweep_interval: 2s
  standby_poll: 500ms
  mkey_secret: $SECRET"
fd_start SIM_HOST=host1 LD_PRELOAD="$FABRICD_BUILD/tests/libmadlog.so $SIM_PRELOAD" \
    IBSIM_SOCKNAME="$IBSIM_SOCKNAME" MADLOG_FILE="$T/a.log"
sm_wait_up 30 || fail "A: subnet not up within 30 s"

# b_config PRIORITY: B's configuration, the same secret
mkdir -p "$T/b/run" "$T/b/state"
b_config() {
	cat > "$T/b/fabricd.yaml" <<EOY
socket: $T/b/run/fabricd.sock
state_dir: $T/b/state
log_level: debug
sm:
  enabled: true
  priority: $1
  sweep_interval: 2s
  standby_poll: 500ms
  mkey_secret: $SECRET
EOY
}
b_config 3
(cd "$T/b" && exec env SIM_HOST=host2 LD_PRELOAD="$FABRICD_BUILD/tests/libmadlog.so $SIM_PRELOAD" \
    IBSIM_SOCKNAME="$IBSIM_SOCKNAME" MADLOG_FILE="$T/b.log" \
    "$FABRICD" -c "$T/b/fabricd.yaml" >> "$T/b/fabricd.log" 2>&1) &
B_PID=$!
fd_second "$B_PID" "$T/b/fabricd.log"
a_lid=$(sm_lid_of host1) b_lid=$(sm_lid_of host2) h3_lid=$(sm_lid_of host3)
[ -n "$a_lid" ] && [ -n "$b_lid" ] && [ -n "$h3_lid" ] || fail "ibnetdiscover: no LID for host1-3"
sm_wait_sminfo 20 "$B_GUID 3 STANDBY" "$b_lid" || fail "B: '$(sm_sminfo_at "$b_lid")', want STANDBY"
b_config 10
kill -HUP "$B_PID"
sm_wait_sminfo 30 "$B_GUID 10 MASTER" || fail "no handover to B: the SM LID says '$(sm_sminfo_at)'"
sm_wait_sminfo 10 "$A_GUID 5 STANDBY" "$a_lid" || fail "A after its handover: '$(sm_sminfo_at "$a_lid")'"

# host3, as an SM A does not know, moves A: DISABLE, then STANDBY
smi() { sim_run -H host3 -t 10 "$FABRICD_BUILD/tools/smi_set" -d "$a_lid" -k 1 -g 0x77 "$@"; }
out=$(smi -m 3) || fail "smi_set DISABLE: $out"
echo "$out" | grep -q '^status 0x0000 ' || fail "A refused the DISABLE: $out"
sm_wait_sminfo 10 "$A_GUID 5 NOTACT" "$a_lid" || fail "A after DISABLE: '$(sm_sminfo_at "$a_lid")'"
l0=$(wc -l < "$T/a.log")
out=$(smi -m 4) || fail "smi_set STANDBY: $out"
echo "$out" | grep -q '^status 0x0000 ' || fail "A refused the STANDBY: $out"
h3=$(printf '0x%04x' "$h3_lid")
lidsmi() { awk -v n="$l0" -v l="$h3" 'NR > n && $1 == "0x01" && $2 == "0x01" && $3 == "0x0020" &&
    $6 == l' "$T/a.log" | wc -l; }
end=$(( $(date +%s) + 60 ))	# only ends the wait
until [ "$(lidsmi)" -ge 2 ]; do
	[ "$(date +%s)" -gt "$end" ] && fail "A sent $(lidsmi) LID-routed SMInfo polls to host3 (LID $h3_lid) in a minute"
	sleep 0.2
done

# what each port holds: the keys both SMs wrote, port GUID -> key
keys_of() {	# LOG HOST
	awk '$1 == "0x81" && $2 == "0x02" && $3 == "0x0015" && NF >= 10 && $9 != 0 { print $7, $8 }' \
	    "$1" | sort -u | while read -r path key; do
		g=$(sim_diag -H "$2" -t 10 smpquery -D nodeinfo "$path" |
		    sed -n 's/^PortGuid:\.*\(0x[0-9a-f]*\)/\1/p')
		[ -n "$g" ] || { echo "no port at $path from $2" >&2; return 1; }
		printf '0x%016x %s\n' "$g" "$key"
	done
}
capture "$T/held.a" keys_of "$T/a.log" host1
capture -e "$T/held.b" keys_of "$T/b.log" host2
sort -u "$T/held.a" "$T/held.b" > "$T/held"
[ "$(cut -d' ' -f1 "$T/held" | uniq -d)" = "" ] || fail "a port written two keys: $(cat "$T/held")"
# DLID -> port GUID, as ibnetdiscover reads them (switches by port 0)
sm_lids | while read -r g l; do printf '0x%04x 0x%016x\n' "$l" "$g"; done > "$T/lid2guid"
[ -s "$T/lid2guid" ] || fail "ibnetdiscover: no LIDs"

# every LID-routed SubnGet and SubnSet A sent
awk '$1 == "0x01" && ($2 == "0x01" || $2 == "0x02") { print $6, $5, $3 }' "$T/a.log" > "$T/lidsmp"
n=0
while read -r dlid key attr; do
	g=$(awk -v l="$dlid" '$1 == l { print $2 }' "$T/lid2guid")
	held=$(awk -v g="$g" '$1 == g { print $2 }' "$T/held")
	[ -n "$g" ] && [ -n "$held" ] || fail "LID-routed SMP $attr to $dlid: no port [$g] with a key written [$held]"
	[ "$key" = "$held" ] || fail "LID-routed SMP $attr to $dlid ($g) carries M_Key $key, the port holds $held"
	n=$((n + 1))
done < "$T/lidsmp"
[ "$n" -ge 2 ] || fail "$n LID-routed SMPs judged"
echo "$n LID-routed SMPs from A, each with the M_Key of the port at its DLID ($(wc -l < "$T/held") ports keyed)"
fd_stop
pass
