# Route checks from the forwarding tables the switches hold (sourced after
# tests/lib/ibsim.sh).  Nothing here asks the SM under test: the cabling
# comes from ibnetdiscover, the tables from dump_fts, paths from ibtracert.
#
#   lft_dump              ibnetdiscover + dump_fts into $SIM_DIR/{disc,fts}.txt
#   lft_check_all_pairs   every CA-to-CA pair reaches its LID, no loop
#   lft_check_tracert N   N sample pairs: ibtracert names the same switches

LFTWALK_AWK=${FABRICD_SRC:?FABRICD_SRC not set}/tests/lib/lftwalk.awk

lft_dump() {
	sim_diag -t 60 ibnetdiscover > "$SIM_DIR/disc.txt" &&
	    sim_diag -t 120 dump_fts > "$SIM_DIR/fts.txt" &&
	    grep -q '^Unicast lids' "$SIM_DIR/fts.txt"
}

lft_check_all_pairs() {
	awk -f "$LFTWALK_AWK" "$SIM_DIR/disc.txt" "$SIM_DIR/fts.txt"
}

# CA port LIDs from the discovery, one a line.
lft_ca_lids() {
	awk '/^Ca/ { ca = 1; next } /^(Switch|Rt)/ { ca = 0 }
	    ca && /^\[/ { split($0, h, "#"); s = substr(h[2], index(h[2], "lid ") + 4); sub(/[^0-9].*/, "", s);
	    if (s + 0) print s + 0 }' "$SIM_DIR/disc.txt"
}

# lft_check_tracert N: for N pairs spread over the CA LIDs, the switches
# ibtracert walks (its own LID-routed queries) equal lftwalk's path.
lft_check_tracert() {
	lids=$(lft_ca_lids)
	n=$(printf '%s\n' "$lids" | wc -l)
	[ "$n" -ge 2 ] || { echo "lft_check_tracert: fewer than 2 CA LIDs"; return 1; }
	i=0
	while [ "$i" -lt "$1" ]; do
		s=$(printf '%s\n' "$lids" | sed -n "$(( (i * 7) % n + 1 ))p")
		d=$(printf '%s\n' "$lids" | sed -n "$(( (i * 13 + n / 2) % n + 1 ))p")
		i=$((i + 1))
		[ "$s" = "$d" ] && continue
		want=$(awk -v path="$s,$d" -f "$LFTWALK_AWK" "$SIM_DIR/disc.txt" "$SIM_DIR/fts.txt") ||
		    { echo "lftwalk: no path $s -> $d"; return 1; }
		got=$(sim_diag ibtracert "$s" "$d" | sed -n 's/.*switch port {\(0x[0-9a-fA-F]*\)}.*/\1/p' |
		    tr 'A-F' 'a-f')
		if [ -z "$got" ] || [ "$got" != "$want" ]; then
			echo "ibtracert $s -> $d disagrees: got [$got] want [$want]"
			return 1
		fi
	done
}
