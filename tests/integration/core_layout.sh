#!/bin/sh
# The layout from the objects' symbol tables (tools/layout_check.py, also
# `make layout-check`): no circle of files and no use up the folders'
# order beyond those tests/layout-allow.txt lists, each with its reason,
# and no listed one that no longer happens (the list only shrinks).
# Then a scratch copy of one object that needs what a file above defines
# (common/log.o needing sm/module.c's sm_module; an object of sm/sa
# needing sm/core's sm_sweep_request): the check must fail.
. "$FABRICD_SRC/tests/lib/common.sh"
fd_setup
need python3 nm
LC="$FABRICD_SRC/tools/layout_check.py"
ALLOW="$FABRICD_SRC/tests/layout-allow.txt"
capture "$T/layout.out" python3 "$LC" "$FABRICD_BUILD" "$ALLOW" ||
    fail "layout: $(cat "$T/layout.out")"
tail -1 "$T/layout.out"

# can it fail?  A copy of the build's common/ and sm/ objects, with a
# common/ object that needs sm_module: a use up the order and a circle
mkdir -p "$T/b/common" "$T/b/sm"
cp "$FABRICD_BUILD"/common/*.o "$T/b/common/" && cp "$FABRICD_BUILD"/sm/*.o "$T/b/sm/" ||
    fail "no objects under $FABRICD_BUILD"
printf 'extern const char sm_module[];\nconst void *layout_probe(void) { return sm_module; }\n' > "$T/up.c"
cc -c -o "$T/b/common/zz_up.o" "$T/up.c" || fail "cc"
python3 "$LC" "$T/b" "$ALLOW" > "$T/broken.out" 2>&1 && fail "a use of sm/ from common/ passed: $(cat "$T/broken.out")"
grep -q '^layout: up: common/zz_up.c -> sm/module.c' "$T/broken.out" ||
    fail "the use up the order not named: $(cat "$T/broken.out")"

# and between the SM's rooms: the SA's pure records calling into the core
# (sm_sweep_request, sm/core/phase.c) goes up sm/sa -> sm/core
rm -f "$T/b/common/zz_up.o"
mkdir -p "$T/b/sm/core" "$T/b/sm/sa"
cp "$FABRICD_BUILD"/sm/core/*.o "$T/b/sm/core/" && cp "$FABRICD_BUILD"/sm/sa/*.o "$T/b/sm/sa/" ||
    fail "no objects under $FABRICD_BUILD/sm/core, sm/sa"
python3 "$LC" "$T/b" "$ALLOW" > "$T/clean.out" 2>&1 || fail "the copy alone fails: $(cat "$T/clean.out")"
printf 'extern void sm_sweep_request(void *, int);
void layout_probe2(void) { sm_sweep_request(0, 1); }
' > "$T/up2.c"
cc -c -o "$T/b/sm/sa/zz_up.o" "$T/up2.c" || fail "cc"
python3 "$LC" "$T/b" "$ALLOW" > "$T/broken2.out" 2>&1 && fail "a use of sm/core from sm/sa passed: $(cat "$T/broken2.out")"
grep -q '^layout: up: sm/sa/zz_up.c -> sm/core/phase.c' "$T/broken2.out" ||
    fail "the use up the SM's rooms not named: $(cat "$T/broken2.out")"
pass
