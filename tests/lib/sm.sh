# Helpers for the SM's integration tests (sourced after common.sh and
# ibsim.sh).  Everything checked here comes from infiniband-diags run as
# other clients of the simulator, never from fabricd's own answers.

# sm_start_fabricd HOST [YAML-EXTRA]: fabricd as the SM attached to HOST.
sm_start_fabricd() {
	fd_config "sm:
  enabled: true
  sweep_interval: ${SM_SWEEP:-2s}${2:+
$2}"
	fd_start SIM_HOST="$1" LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
}

# sm_wait_up [SECS]: until `status` says the subnet is up.
sm_wait_up() {
	i=0
	until ctl status 2>/dev/null | grep -q '^    state: up'; do
		[ $i -ge $((${1:-20} * 10)) ] && return 1
		i=$((i + 1))
		sleep 0.1
	done
}

# sm_lids: "GUID LID" for every LID-carrying port ibnetdiscover sees
# (switches by node GUID, CA ports by port GUID), sorted.
sm_lids() {
	sim_diag ibnetdiscover | awk '
	/^switchguid=/ { split($1, a, "[=(]"); sw = a[2] }
	/^Switch/ { for (i = 1; i <= NF; i++) if ($i == "lid") print sw, $(i + 1); inca = 0; next }
	/^(Ca|Hca)/ { inca = 1; next }
	inca && /^\[[0-9]+\]\(/ {
		match($0, /\([0-9a-f]+\)/); g = substr($0, RSTART + 1, RLENGTH - 2)
		for (i = 1; i <= NF; i++) if ($i == "lid") { print "0x" g, $(i + 1); break }
	}' | sort
}

# sm_lid_of HOST: the LID of a host's port 1 as ibnetdiscover shows it.
sm_lid_of() {
	sim_diag ibnetdiscover | sed -n "s/.*\"$1\" lid \([0-9]*\) .*/\1/p" | head -1
}

# sm_lft_dump: every switch's LFT as ibroute prints it, switch by switch.
sm_lft_dump() {
	for lid in $(sim_diag ibnetdiscover 2>/dev/null | sed -n 's/^Switch.* lid \([0-9]*\) .*/\1/p' | sort -n); do
		echo "== $lid"
		sim_diag ibroute "$lid" 2>/dev/null | grep -v '^Unicast lids'
	done
}
