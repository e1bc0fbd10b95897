# Walk unicast routes through the forwarding tables the switches really
# hold, as dumped by infiniband-diags, independently of any SM's own view.
#
#   awk -f lftwalk.awk DISC FTS                      every CA-to-CA pair
#   awk -v path=SLID,DLID -f lftwalk.awk DISC FTS    print one path: the
#                                                    switch GUIDs, one a line
#   awk -v avoid=NODE:PORT -f lftwalk.awk DISC FTS   every pair, and fail if
#                                                    a route crosses that port
#                                                    (NodeDescription:port)
#
# DISC is `ibnetdiscover` output (cabling, LIDs); FTS is `dump_fts` output
# (one "Unicast lids ... guid 0x... (name):" header per switch, then
# "0xLID PORT : ..." lines).  The check fails on a missing entry, an entry
# naming an uncabled port, a loop, or a route that ends on the wrong node.
# Output: "lftwalk: N pairs ok, M failed, max H switch hops" (and up to 20
# failures); exit status 1 on any failure or when nothing was walked.

function field_after(s, key,    i, r) {
	i = index(s, key)
	if (i == 0)
		return ""
	r = substr(s, i + length(key))
	sub(/[^0-9].*/, "", r)
	return r
}

FNR == 1 { file++ }

# ---- ibnetdiscover ----
file == 1 && /^(Switch|Ca|Rt)[ \t]/ {
	split($0, q, "\"")
	cur = q[2]
	type[cur] = ($1 == "Switch") ? "sw" : "ca"
	name[cur] = q[4]
	if (type[cur] == "sw") {
		split($0, h, "#")
		swlid[cur] = field_after(h[2], " lid ") + 0
		if (swlid[cur])
			lidowner[swlid[cur]] = cur
	}
	next
}
file == 1 && /^\[/ && cur != "" {
	p = substr($0, 2) + 0
	split($0, q, "\"")
	rest = q[3]
	peer[cur, p] = q[2]
	peerport[cur, p] = substr(rest, index(rest, "[") + 1) + 0
	if (type[cur] == "ca") {
		split($0, h, "#")
		l = field_after(h[2], "lid ") + 0
		if (l) {
			calid[cur, p] = l
			lidowner[l] = cur
			ncaports++
			caport_node[ncaports] = cur
			caport_num[ncaports] = p
			caport_lid[ncaports] = l
		}
	}
	next
}
file == 1 && /^$/ { cur = "" }

# ---- dump_fts ----
file == 2 && /^Unicast lids/ {
	g = $0
	sub(/.* guid 0x/, "", g)
	sub(/[^0-9a-fA-F].*/, "", g)
	fsw = "S-" tolower(g)
	while (length(fsw) < 18)
		fsw = "S-0" substr(fsw, 3)
	next
}
file == 2 && /^0x[0-9a-fA-F]+ +[0-9]+ / && fsw != "" {
	lft[fsw, strtonum_hex($1)] = $2 + 0
	next
}

function strtonum_hex(s,    n, i, c) {
	n = 0
	s = tolower(substr(s, 3))
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1)) - 1
		n = n * 16 + c
	}
	return n
}

# Walk from CA port (node, port) to dlid; sets walk_err, walk_hops, and
# walk_path (switch ids, space separated).  Returns 1 when it arrived.
function walk(node, port, dlid,    cur, out, seen, hops) {
	walk_err = ""
	walk_path = ""
	if (calid[node, port] == dlid)
		return 1
	if (!((node, port) in peer)) {
		walk_err = "source port not cabled"
		return 0
	}
	cur = peer[node, port]
	hops = 0
	while (1) {
		if (type[cur] != "sw") {
			walk_hops = hops
			if (calid[cur, last_in] == dlid)
				return 1
			walk_err = "ended at " name[cur] " which does not hold LID " dlid
			return 0
		}
		if (cur in seen) {
			walk_err = "loop at " name[cur]
			return 0
		}
		seen[cur] = 1
		hops++
		walk_path = walk_path " " cur
		if (swlid[cur] == dlid) {
			walk_hops = hops
			return 1
		}
		if (!((cur, dlid) in lft)) {
			walk_err = "no entry for LID " dlid " on " name[cur]
			return 0
		}
		out = lft[cur, dlid]
		if (avoid != "" && (name[cur] ":" out == avoid ||
		    ((cur, out) in peer && name[peer[cur, out]] ":" peerport[cur, out] == avoid)))
			crossed++
		if (!((cur, out) in peer)) {
			walk_err = name[cur] " forwards LID " dlid " to uncabled port " out
			return 0
		}
		last_in = peerport[cur, out]
		cur = peer[cur, out]
	}
}

END {
	if (path != "") {
		split(path, pl, ",")
		for (i = 1; i <= ncaports; i++)
			if (caport_lid[i] == pl[1] + 0)
				break
		if (i > ncaports) {
			print "lftwalk: no CA port with LID " pl[1] > "/dev/stderr"
			exit 1
		}
		if (!walk(caport_node[i], caport_num[i], pl[2] + 0)) {
			print "lftwalk: " walk_err > "/dev/stderr"
			exit 1
		}
		n = split(walk_path, ids, " ")
		for (k = 1; k <= n; k++)
			print "0x" substr(ids[k], 3)
		exit 0
	}
	ok = 0; bad = 0; maxh = 0
	for (i = 1; i <= ncaports; i++)
		for (j = 1; j <= ncaports; j++) {
			if (i == j)
				continue
			if (walk(caport_node[i], caport_num[i], caport_lid[j])) {
				ok++
				if (walk_hops > maxh)
					maxh = walk_hops
			} else {
				if (bad < 20)
					print "lftwalk: " name[caport_node[i]] " -> " \
					    name[caport_node[j]] " (LID " caport_lid[j] "): " walk_err
				bad++
			}
		}
	printf "lftwalk: %d pairs ok, %d failed, max %d switch hops\n", ok, bad, maxh
	if (avoid != "")
		printf "lftwalk: %d routes cross %s\n", crossed, avoid
	exit (bad > 0 || ok == 0 || crossed > 0)
}
