#!/bin/sh
# The topology picture of the 1,296-host 3-level fat tree (radix 36, 180
# switches), judged from graphviz's own layout (dot -Tjson) by
# tests/lib/dot_layout.py: no two node boxes overlap, no label's text lies
# on another label or on another node, the switches of each level (known
# by their topogen names) share a rank, in natural name order left to
# right, levels stacked from the cores down, and at most 400 lines are
# drawn (2,664 before the cables were bundled by group).  The cables the
# labels count add up to the net file's (topogen's, not fabricd's): each
# cable in exactly one bundle.  dot must render it to SVG and PNG too.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup dot python3 jq
sim_fabric_up -w 90 "-p 4"

capture "$T/fabric.dot" ctl topology --format dot
t0=$(date +%s.%N)
dot -Tjson "$T/fabric.dot" > "$T/layout.json" || fail "dot -Tjson rejects the export"
t1=$(date +%s.%N)
python3 "$FABRICD_SRC/tests/lib/dot_layout.py" "$T/layout.json" 400 ||
    fail "the picture is not readable (above)"
echo "dot -Tjson: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s"

# Each cable once: the counts "N x 4xQDR" of the bundles (edge labels,
# group boxes, host boxes; not the per-pod boxes, which split a group's
# count again) against the cabled ports of the net file, halved.
want=$(($(grep -c '^\[' "$SIM_DIR/topo.net") / 2))
[ "$want" -eq 3888 ] || fail "the net file has $want cables, not 3888"
got=$(jq -r '(.objects[] | select(.pos and (.name | test("^group-[0-9]+-") | not)) | .label),
    (.edges[] | .label // empty)' "$T/layout.json" |
    grep -o '[0-9][0-9]* x [0-9]*x[A-Z]*' | awk '{ s += $1 } END { print s + 0 }')
[ "$got" -eq "$want" ] || fail "the bundles count $got cables, the net file $want"
dot -Tsvg "$T/fabric.dot" > "$T/fabric.svg" && [ -s "$T/fabric.svg" ] || fail "dot -Tsvg"
dot -Tpng "$T/fabric.dot" > "$T/fabric.png" && [ -s "$T/fabric.png" ] || fail "dot -Tpng"
echo "dot: $got cables in $(grep -c ' -- ' "$T/fabric.dot") edge lines, SVG $(wc -c < "$T/fabric.svg") bytes"
pass
