#!/bin/sh
# Issue 26's scale, checked: on the 1,296-host tree (topogen -p 4) with
# fabricd on its defaults, a 512-host job partition made and deleted five
# times, each verified with smpquery on nine of its hosts; then 50 jobs of
# 8 hosts asked for at once all succeed, with 50 distinct keys, each read
# back with smpquery on one of its hosts; no span of the event loop over
# the suite's CPU bound while they run (loop_gate, tests/lib/common.sh).
# How long each takes is printed, not gated (a busy machine's clock
# decides it): make bench reports it (bench/job_partitions.sh).
. "$FABRICD_SRC/tests/lib/common.sh"
out=$(sh "$FABRICD_SRC/bench/job_partitions.sh" "$FABRICD_BUILD" 1296 --gate 2>&1)
rc=$?
echo "$out" | tail -8
[ "$rc" = 0 ] || fail "bench/job_partitions.sh --gate exited $rc"
pass
