#!/bin/sh
# The layout from the objects' symbol tables (tools/layout_check.py, also
# `make layout-check`): no circle of files and no use up the folders'
# order beyond those tests/layout-allow.txt lists, each with its reason,
# and no listed one that no longer happens (the list only shrinks).
# Then a scratch copy of one object that needs what a file above defines
# (common/log.o needing sm/module.c's sm_module): the check must fail.
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
pass
