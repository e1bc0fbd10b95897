# How many 64-entry LFT blocks differ between two dump_fts outputs: what a
# subnet manager had to send, at the least, to go from one to the other.
#
#   awk -f ftsdiff.awk BEFORE AFTER    prints "blocks N switches M"
#
# A switch in only one of the dumps counts every block it holds there.

FNR == 1 { file++ }
/^Unicast lids/ {
	sw = $0
	sub(/.* guid 0x/, "", sw)
	sub(/[^0-9a-fA-F].*/, "", sw)
	sw = tolower(sw)
	next
}
/^0x[0-9a-fA-F]+ +[0-9]+ / && sw != "" {
	lid = hex($1)
	k = sw SUBSEP int(lid / 64)
	blk[k] = 1
	if (file == 1)
		a[sw, lid] = $2 + 0
	else
		b[sw, lid] = $2 + 0
	lids[sw, lid] = 1
	next
}

function hex(s,    n, i) {
	n = 0
	s = tolower(substr(s, 3))
	for (i = 1; i <= length(s); i++)
		n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return n
}

END {
	for (k in lids) {
		split(k, kp, SUBSEP)
		if (!(k in a) || !(k in b) || a[k] != b[k])
			changed[kp[1], int(kp[2] / 64)] = 1
	}
	for (k in changed) {
		n++
		split(k, kp, SUBSEP)
		sws[kp[1]] = 1
	}
	for (k in sws)
		m++
	printf "blocks %d switches %d\n", n, m
}
