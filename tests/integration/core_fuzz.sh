#!/bin/sh
# The fuzz targets in the suite (issue 39): every parser of outside input
# has a libFuzzer target (tests/fuzz/fuzz_*.c, built by make check into
# build-fuzz/ with clang, ASan and UBSan).  Each replays its seed corpus
# and every input that once failed (tests/fuzz/corpus/), then takes
# FUZZ_RUNS (50,000) new inputs from a fixed seed: counted work, the same
# inputs on a busy machine as on an idle one.  `make fuzz` runs each for
# 10 minutes.  The sanitized pass fuzzes; the plain pass only replays (the
# targets are the same binaries).
. "$FABRICD_SRC/tests/lib/common.sh"
fd_setup
fuzz=$FABRICD_SRC/build-fuzz
[ -x "$fuzz/fuzz/fuzz_config" ] || fail "no fuzz targets in $fuzz (make fuzz-build; make check builds them)"
runs=0
ldd "$FABRICD" 2>/dev/null | grep -q libasan && runs=${FUZZ_RUNS:-50000}
sh "$FABRICD_SRC/tests/fuzz/run.sh" "$fuzz" "$runs" || fail "a fuzz target failed (above)"
# the RoCE class without a priority (the UBSan report that started this)
# is in the corpus, and still a config error, not an index of -1
[ -f "$FABRICD_SRC/tests/fuzz/corpus/roce_profile/class_without_priority.yaml" ] ||
    fail "the RoCE class input left the corpus"
pass
