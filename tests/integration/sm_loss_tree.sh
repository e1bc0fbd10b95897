#!/bin/sh
# Recovery from MAD loss on the daemon's defaults, on a 64-host 3-level
# fat tree (radix 8, 4 pods, 40 switches): 10% then 30% loss on every
# aggregation and core switch (ibsim's console Error) over three heavy
# sweeps each.  A Set whose reply is lost may or may not have landed, so
# fabricd must not assume either; once the loss stops, within two light
# sweeps every CA pair is routable and loop-free, judged by walking the
# tables dump_fts reads (tests/lib/lftwalk.sh), and `fabricctl route`
# names the switches that walk takes for a sample of pairs.
. "$FABRICD_SRC/tests/lib/common.sh"
. "$FABRICD_SRC/tests/lib/ibsim.sh"
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
sim_available || skip "ibsim or umad2sim not installed"
command -v dump_fts >/dev/null || skip "infiniband-diags not installed"
command -v jq >/dev/null || skip "jq not installed"
fd_setup
fd_on_exit sim_stop
SIM_DIR=$T/sim

sim_topology -P 8 -p 4 -k 4 -h 4 -a 4 || fail topogen
sim_start || fail "ibsim"
fd_config "sm:
  enabled: true"
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
sm_wait_up 60 || fail "subnet not up"
lft_dump || fail "dump_fts"
lft_check_all_pairs > /dev/null || fail "routes before the loss"

lossy=$(sim_diag ibnetdiscover | sed -n 's/^Switch.*"\(sw-p[0-9]*-a[0-9]*\|sw-c[0-9]*\)".*/\1/p' | sort -u)
[ "$(printf '%s\n' "$lossy" | wc -l)" = 24 ] || fail "aggregation and core switches: [$lossy]"
for rate in 10 30; do
	for s in $lossy; do sim_console "Error \"$s\" $rate" || fail console; done
	for _ in 1 2 3; do ctl sweep --heavy >/dev/null || fail "sweep refused at $rate%"; done
done
for s in $lossy; do sim_console "Error \"$s\" 0" || fail console; done
lost=$(db "SELECT coalesce(sum(timeouts), 0) FROM sm_sweeps WHERE kind = 'heavy'")
echo "during the loss: $lost MADs timed out"
[ "$lost" -gt 0 ] || fail "the loss lost nothing: the test proves little"

# within two light sweeps from now (10 s apart by default)
last=$(db "SELECT max(id) FROM sm_sweeps")
end=$(( $(date +%s) + 60 ))
until [ "$(db "SELECT count(*) FROM sm_sweeps WHERE id > $last AND kind = 'light'")" -ge 2 ]; do
	[ "$(date +%s)" -gt "$end" ] && fail "no two light sweeps within 60 s"
	sleep 0.5
done
lft_dump || fail "dump_fts after the loss"
lft_check_all_pairs > "$T/walk" || { head -25 "$T/walk"; fail "CA pairs unroutable two light sweeps after the loss"; }
head -1 "$T/walk"

# fabricd's route is the one the switches take (a sample of pairs)
hosts=$(sim_diag ibnetdiscover | sed -n 's/.*"\(host[0-9]*\)" lid \([0-9]*\) .*/\1 \2/p' | sort -u)
[ "$(printf '%s\n' "$hosts" | wc -l)" = 64 ] || fail "64 hosts with LIDs: $hosts"
checked=0 i=0
while [ $i -lt 24 ]; do
	a=$(printf '%s\n' "$hosts" | sed -n "$(( (i * 7) % 64 + 1 ))p")
	b=$(printf '%s\n' "$hosts" | sed -n "$(( (i * 13 + 32) % 64 + 1 ))p")
	i=$((i + 1))
	set -- $a $b
	[ "$1" = "$3" ] && continue
	want=$(awk -v path="$2,$4" -f "$LFTWALK_AWK" "$SIM_DIR/disc.txt" "$SIM_DIR/fts.txt") ||
	    fail "lftwalk: no path $1 -> $3"
	ctl --json route "$1" "$3" > "$T/route.json" || fail "route $1 $3 refused: $(cat "$T/route.json")"
	[ "$(jq -r .status "$T/route.json")" = ok ] || fail "route $1 $3: $(jq -c '{status, message}' "$T/route.json")"
	got=$(jq -r '.hops[] | select(.type == "switch") | .guid' "$T/route.json")
	[ -n "$want" ] && [ "$got" = "$want" ] ||
	    fail "route $1 $3 says [$(echo $got)], the switches take [$(echo $want)]"
	checked=$((checked + 1))
done
[ $checked -ge 20 ] || fail "only $checked pairs compared"
fd_stop
pass
