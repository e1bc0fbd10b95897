#!/bin/sh
# run.sh: alone-plain (it gates how long a job partition takes; the sanitizer build's run checks every job but not the time)
# Issue 26's figures, gated: on the 1,296-host tree (topogen -p 4) with
# fabricd on its defaults, a 512-host job partition made and deleted five
# times, each verified with smpquery on nine of its hosts, median at most
# 2 s each; then 50 jobs of 8 hosts asked for at once all succeed, with 50
# distinct keys, each read back with smpquery on one of its hosts; no
# step of the event loop over 10 ms while they run.  The
# measurement is bench/job_partitions.sh's (make bench prints it).
. "$FABRICD_SRC/tests/lib/common.sh"
out=$(sh "$FABRICD_SRC/bench/job_partitions.sh" "$FABRICD_BUILD" 1296 --gate 2>&1)
rc=$?
echo "$out" | tail -8
[ "$rc" = 0 ] || fail "bench/job_partitions.sh --gate exited $rc"
pass
