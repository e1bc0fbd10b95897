# osmtest (OpenSM's SA test program) against the SA of the simulated
# subnet, whichever SM serves it: runs, verdicts and stage lists for the
# tests that hold fabricd's SA to OpenSM's on the same ibsim fabric.
#   . "$FABRICD_SRC/tests/lib/osmtest.sh"   (after tests/lib/sm.sh)
#
# osmtest can exit 0 on a failed flow: a flow passes when it exits 0 and
# prints 'OSMTEST: TEST "..." PASS'.  Under ibsim osmtest never times a
# request out (umad2sim ignores timeouts): a request that gets no answer
# leaves it waiting for ever.  So a run whose log has not grown for
# OSMT_STALL seconds (5) is ended and counted as stalled; the flows on
# these small fabrics log every few milliseconds while they work, and an
# SA answer takes milliseconds.

# osmt_run WHO FLOW: osmtest -f FLOW from OSMT_HOST (host2) with the
# inventory $T/WHO.dat; log $T/WHO.FLOW.log, output $T/WHO.FLOW.out.  Its
# exit status; 124 when it stalled (then $T/WHO.FLOW.stalled exists).
osmt_run() {
	_log=$T/$1.$2.log
	rm -f "$_log" "$T/$1.$2.stalled"
	(cd "$SIM_DIR/run" && SIM_HOST=${OSMT_HOST:-host2} LD_PRELOAD=$SIM_PRELOAD \
	    exec timeout -k 2 60 osmtest -f "$2" -i "$T/$1.dat" -l "$_log" > "$T/$1.$2.out" 2>&1) &
	_pid=$!
	_size=-1
	_still=0
	while kill -0 "$_pid" 2>/dev/null; do
		_now=$(stat -c %s "$_log" 2>/dev/null || echo 0)
		if [ "$_now" = "$_size" ]; then
			_still=$((_still + 1))
		else
			_still=0
			_size=$_now
		fi
		if [ "$_still" -ge $((${OSMT_STALL:-5} * 10)) ]; then
			: > "$T/$1.$2.stalled"
			_child=$(pgrep -P "$_pid")
			kill "$_pid" 2>/dev/null
			wait "$_pid" 2>/dev/null
			# a client killed unclosed stays attached to ibsim (10 at most)
			[ -z "$_child" ] || sim_drop_client "$_child"
			return 124
		fi
		sleep 0.1
	done
	wait "$_pid"
}

# osmt_passes WHO FLOW: the run exits 0 with the verdict PASS.
osmt_passes() {
	osmt_run "$1" "$2" && grep -q '^OSMTEST: TEST ".*" PASS$' "$T/$1.$2.out"
}

# osmt_why WHO FLOW: the last error osmtest logged (for a failure message).
osmt_why() {
	grep 'ERR' "$T/$1.$2.log" 2>/dev/null | grep -v 'ERR 5501\|ERR 0003' | tail -1 | sed 's/.*-> //'
}

# osmt_stages WHO FLOW: what the flow did, line by line, as osmtest's own
# functions log it (queries, checks, statuses, errors), numbers, GUIDs and
# GIDs blanked, so that two SMs' runs of a flow compare line for line; a
# check osmtest skips because its inventory lacks a port ("Could not
# check ...") is left out: the inventories of two SMs differ.
osmt_stages() {
	sed -n 's/^.* 0x0[0-9a-f] -> \(osmt[a-z_0-9]*: .*\)$/\1/p' "$T/$1.$2.log" |
	    grep -v ': Could not check ' |
	    sed 's/[0-9a-f]*:[0-9a-f:]*:[0-9a-f]*/G/g; s/0x[0-9a-fA-F]*/N/g; s/[0-9][0-9]*/N/g'
}

# osmt_as_far A B FLOW: A's run of FLOW got at least as far as B's, stage
# by stage: every stage of B's (at least one) is one of A's, in the same
# order (A may have done more: a check B's inventory made osmtest skip).
# Else the first of B's stages A lacks is in $T/A-B.FLOW.diff.
osmt_as_far() {
	osmt_stages "$1" "$3" > "$T/$1.$3.stages"
	osmt_stages "$2" "$3" > "$T/$2.$3.stages"
	awk 'NR == FNR { b[++n] = $0; next }
	    i < n && $0 == b[i + 1] { i++ }
	    END { if (n == 0) print "no stage in the second run"; else if (i < n) print "stage " i + 1 " of " n ": " b[i + 1]
		exit i < n || n == 0 }' "$T/$2.$3.stages" "$T/$1.$3.stages" > "$T/$1-$2.$3.diff"
}

# osmt_unsup_expected WHO FLOW...: every UNSUP_METHOD_ATTR the runs met is
# one osmtest provokes on purpose and says so on the next line ("IS
# EXPECTED ERROR": Set of SMInfoRecord and of InformInfoRecord, which
# OpenSM answers so too, osm_sa_sminfo_record.c, osm_sa_informinfo.c);
# an attribute or method not served would show here.  Prints what else.
osmt_unsup_expected() {
	_who=$1
	shift
	for _f in "$@"; do
		awk '/-> / { if (want && $0 !~ /IS EXPECTED ERROR/) print prev; want = 0 }
		    /Remote error = IB_MAD_STATUS_UNSUP_METHOD_ATTR/ { want = 1; prev = $0 }
		    END { if (want) print prev }' "$T/$_who.$_f.log"
	done | sed 's/.*-> //' | grep . && return 1
	return 0
}

# osmt_a_reaches_key WHO: -f a got through every SA validation (what -f v
# runs) to the wrong-SM_Key query, and that query went unanswered: the run
# stalled there (the SA must drop it; osmtest expects a timeout that under
# ibsim never comes).
osmt_a_reaches_key() {
	[ -e "$T/$1.a.stalled" ] &&
	    ! grep -q 'ERR 0146\|ERR 0011' "$T/$1.a.log" &&
	    grep -- '-> osmt' "$T/$1.a.log" | tail -1 |
	    grep -q 'osmtest_wrong_sm_key_ignored: \[\[ ===== Expecting Errors - START'
}
