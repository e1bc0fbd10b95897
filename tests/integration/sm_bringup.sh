#!/bin/sh
# The SM brings fabrics up, checked only with infiniband-diags run as other
# clients of the simulator: every port has a unique non-zero LID
# (ibnetdiscover), every cabled port is Active (iblinkinfo), sminfo names
# fabricd's port as MASTER with the configured priority, the slow link is
# the one reported degraded, a route crosses the fabric (ibtracert), the
# lowest and highest LIDs hold the subnet prefix (default and configured),
# and sqlite holds every link once.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup

# check_fabric NODES SM-HOST FAR-HOST FAR-LID PREFIX
check_fabric() {
	lids=$(sm_lids)
	n=$(echo "$lids" | grep -c .)
	[ "$n" = "$1" ] || fail "ibnetdiscover: $n ports with a LID, want $1"
	echo "$lids" | awk '$2 == 0 || $2 == "" { exit 1 }' || fail "a port has LID 0"
	dup=$(echo "$lids" | awk '{ print $2 }' | sort | uniq -d)
	[ -z "$dup" ] || fail "duplicate LIDs: $dup"

	links=$(sim_diag iblinkinfo | grep 'LinkUp')
	[ -n "$links" ] || fail "iblinkinfo shows no link"
	notactive=$(echo "$links" | grep -v 'Active/' || true)
	[ -z "$notactive" ] || fail "links not Active: $(echo "$notactive" | head -3)"

	own=$(sim_diag -H "$2" ibnetdiscover | sed -n 's/^# Initiated from node [0-9a-f]* port \([0-9a-f]*\)/\1/p')
	sminfo=$(sim_diag -H "$3" sminfo) || fail "sminfo failed"
	echo "$sminfo" | grep -q 'SMINFO_MASTER' || fail "sminfo: $sminfo"
	echo "$sminfo" | grep -q 'priority 11 ' || fail "sminfo priority: $sminfo"
	g=$(echo "$sminfo" | sed -n 's/.*sm guid 0x0*\([0-9a-f]*\),.*/\1/p')
	[ "$g" = "$(echo "$own" | sed 's/^0*//')" ] || fail "sminfo guid $g, own port $own"

	sim_diag -H "$3" ibtracert "$(sm_lid_of "$2")" "$4" | grep -q 'To ca' ||
	    fail "ibtracert $2 -> LID $4"

	# Every CA port and every switch's port 0 holds the subnet prefix.
	for lid in $(echo "$lids" | awk '{ print $2 }' | sort -n | sed -n '1p;$p'); do
		pre=$(sim_diag smpquery portinfo "$lid" | sed -n 's/^GidPrefix:\.*//p')
		[ "$pre" = "$5" ] || fail "LID $lid: GidPrefix $pre, want $5"
	done

	# The durable record: as many links in sqlite as ibnetdiscover sees
	# (it prints each link from both ends), each once.
	ends=$(sim_diag ibnetdiscover | grep -c '^\[')
	stored=$(db "SELECT count(*) FROM sm_links")
	[ "$stored" = $((ends / 2)) ] || fail "sqlite holds $stored links, ibnetdiscover $((ends / 2))"
	[ "$(db "SELECT count(*) FROM (SELECT DISTINCT a_guid, a_port FROM sm_links
	    UNION SELECT DISTINCT b_guid, b_port FROM sm_links)")" = "$ends" ] ||
	    fail "a port is on two stored links"
}

# 2-level fat tree, 324 hosts (18 leaves x 18, 9 spines), one slow uplink.
sim_fabric_up "-k 18 -h 18 -s 9 -x sw-l3:19" "  priority: 11"
check_fabric $((324 + 27)) host1 host300 "$(sm_lid_of host300)" 0xfe80000000000000
could=$(sim_diag iblinkinfo -l | grep -c 'Could be')
ours=$(ctl --json ports | grep -c '"degraded": true')
[ "$could" = "$ours" ] && [ "$could" -gt 0 ] ||
    fail "iblinkinfo shows $could degraded ports, fabricd $ours"
ctl --json ports sw-l3 | grep -B12 '"degraded": true' | grep -q '"port": 19' ||
    fail "the degraded port of sw-l3 is not port 19"
fd_stop
sim_stop

# random irregular fabric
sim_fabric_up -H host3 "-r 7 -n 10 -e 8 -h 2" "  priority: 11
  subnet_prefix: 0xfec0000000000a0b"
check_fabric 30 host3 host20 "$(sm_lid_of host17)" 0xfec0000000000a0b
pass
