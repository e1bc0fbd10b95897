#!/bin/sh
# Recovery from MAD loss: with 10% loss on a third of the switches
# (ibsim's console Error, on every hop entering them) during heavy sweeps,
# no healthy host is reported gone, and within two light sweeps after the
# loss stops every CA pair is routable again, judged by walking the
# tables dump_fts reads (tests/lib/lftwalk.sh), not by asking fabricd.
# mad_retries is 0 so that a small fabric loses probes at all; discovery
# asks a lost probe again (SM_PROBE_TRIES) and keeps a CA whose switch
# port still has link, as unreachable, with its routes.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
sim_test_setup dump_fts jq
SM_SWEEP=1s

sim_fabric_up "-P 8 -k 6 -h 4 -s 3" "  mad_retries: 0
  mad_timeout: 100ms"
lft_dump || fail "dump_fts"
lft_check_all_pairs > /dev/null || fail "routes before the loss"

# a third of the 9 switches: two leaves (not host1's) and a spine
lossy='sw-l2 sw-l4 sw-s2'
for s in $lossy; do sim_console "Error \"$s\" 10" || fail console; done
for _ in 1 2 3; do ctl sweep --heavy >/dev/null || fail "sweep refused"; done
for s in $lossy; do sim_console "Error \"$s\" 0" || fail console; done
failed=$(db "SELECT coalesce(sum(unreachable), 0) FROM sm_sweeps WHERE kind = 'heavy'")
kept=$(db "SELECT count(*) FROM events WHERE message LIKE '%unreachable, kept with its routes%'")
lost=$(db "SELECT coalesce(sum(timeouts), 0) FROM sm_sweeps WHERE kind = 'heavy'")
echo "during the loss: $lost MADs timed out, $failed probes failed after asking again, $kept CAs kept as unreachable"
[ "$lost" -gt 0 ] || fail "the loss lost nothing: the test proves little"

# within two light sweeps from now
last=$(db "SELECT max(id) FROM sm_sweeps")
end=$(( $(date +%s) + 60 ))	# only ends the wait: the sweeps are counted
until [ "$(db "SELECT count(*) FROM sm_sweeps WHERE id > $last AND kind = 'light'")" -ge 2 ]; do
	[ "$(date +%s)" -gt "$end" ] && fail "no two light sweeps a minute on"
	sleep 0.2
done
lft_dump || fail "dump_fts after the loss"
lft_check_all_pairs > "$T/walk" || { tail -5 "$T/walk"; fail "CA pairs unroutable two light sweeps after the loss"; }
# The event's text is "node gone", the node is in its object column.
gone() { db "SELECT object || ': ' || message FROM events WHERE message LIKE 'node gone%'"; }
g=$(gone) || fail "events query"
[ -z "$g" ] || fail "healthy nodes reported gone: $g"

# A host whose link is up but which answers nothing (every MAD entering
# it dropped) during a heavy sweep: unreachable, not gone, its routes
# kept; once it answers, a light sweep's probe brings it back.
sim_console 'Error "host5"[1] 100' || fail console
ctl sweep --heavy >/dev/null || fail "sweep refused"
db "SELECT message FROM events WHERE message LIKE '%unreachable, kept%'" | grep -q host5 ||
    fail "host5 not kept as unreachable: $(db "SELECT message FROM events ORDER BY id DESC LIMIT 5")"
unreachable() { ctl --json nodes | jq -r '.nodes[] | select(.description == "host5") | .unreachable'; }
[ "$(unreachable)" = true ] || fail "nodes does not say host5 is unreachable: $(unreachable)"
lft_dump && lft_check_all_pairs > "$T/walk" || { tail -5 "$T/walk"; fail "routes withdrawn for unreachable host5"; }
# the sweeps are counted from before the error clears: on a loaded
# machine the probe and its heavy sweep can both be over before a query
# made after the console write
last=$(db "SELECT max(id) FROM sm_sweeps")
sim_console 'Error "host5"[1] 0' || fail console
# Judged in sweeps, not seconds (a loaded machine sweeps less often):
# silent, host5 was probed at most every 5th light sweep (backoff 1, 2,
# 4), so within 12 sweeps two probes have gone out and the heavy sweep
# the first answer asks for has run.  A probe lost to load (mad_timeout
# 100 ms, no retry) costs one more round, not the verdict.
end=$(( $(date +%s) + 60 ))
since() { db "SELECT count(*) FROM sm_sweeps WHERE id > $last $1"; }
until [ "$(unreachable)" = false ] && [ "$(since "AND kind = 'heavy'")" -ge 1 ]; do
	if [ "$(since)" -gt 12 ] || [ "$(date +%s)" -gt "$end" ]; then
		db "SELECT id, kind, timeouts, unreachable_what FROM sm_sweeps WHERE id > $last"
		fail "host5 not rediscovered within $(since) sweeps after it answered again"
	fi
	sleep 0.2
done
g=$(gone) || fail "events query"
[ -z "$g" ] || fail "reported gone: $g"
pass
