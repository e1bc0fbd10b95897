# Which CA-to-CA routes a change of the fabric moved, from the tables the
# switches held before and after it, as infiniband-diags dumped them:
#
#   awk -f routemove.awk DISC_BEFORE FTS_BEFORE DISC_AFTER FTS_AFTER
#
# prints "routemove: pairs N moved M had_to H broken B":
#   N  CA port pairs (source, destination LID) of the fabric before;
#   M  of them whose path (the switches and egress ports, from the switch
#      the source enters) differs after;
#   H  of them whose path before crossed a link that is not cabled the same
#      way after (a link that failed, a switch that went): they had to move;
#   B  of them whose route after does not arrive (no entry, a port not
#      cabled, a loop, the wrong node); a pair whose source or destination
#      is gone counts as neither moved nor broken, only in H.
# DISC is `ibnetdiscover` output, FTS is `dump_fts` output, as for
# lftwalk.awk.  Exit status 1 when any route after is broken.
#
# A pair's path is decided by the switch its source enters and the LID, so
# each (switch, LID) is walked once per dump and counts for every CA port
# cabled to that switch.

function field_after(s, key,    i, r) {
	i = index(s, key)
	if (i == 0)
		return ""
	r = substr(s, i + length(key))
	sub(/[^0-9].*/, "", r)
	return r
}

function hexnum(s,    n, i) {
	n = 0
	s = tolower(substr(s, 3))
	for (i = 1; i <= length(s); i++)
		n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return n
}

FNR == 1 { file++; k = file <= 2 ? 1 : 2; cur = ""; fsw = "" }

# ---- ibnetdiscover (files 1 and 3) ----
(file == 1 || file == 3) && /^(Switch|Ca|Rt)[ \t]/ {
	split($0, q, "\"")
	cur = q[2]
	type[cur] = ($1 == "Switch") ? "sw" : "ca"
	present[k, cur] = 1
	if (type[cur] == "sw") {
		split($0, h, "#")
		l = field_after(h[2], " lid ") + 0
		if (l)
			swlid[k, cur] = l
	}
	next
}
(file == 1 || file == 3) && /^\[/ && cur != "" {
	p = substr($0, 2) + 0
	split($0, q, "\"")
	rest = q[3]
	peer[k, cur, p] = q[2]
	peerport[k, cur, p] = substr(rest, index(rest, "[") + 1) + 0
	if (type[cur] == "ca") {
		split($0, h, "#")
		l = field_after(h[2], "lid ") + 0
		if (l) {
			calid[k, cur, p] = l
			if (k == 1) {
				ncap++
				cap_node[ncap] = cur
				cap_port[ncap] = p
				cap_lid[ncap] = l
			} else
				lid_after[l] = 1
		}
	}
	next
}
(file == 1 || file == 3) && /^$/ { cur = "" }

# ---- dump_fts (files 2 and 4) ----
(file == 2 || file == 4) && /^Unicast lids/ {
	g = $0
	sub(/.* guid 0x/, "", g)
	sub(/[^0-9a-fA-F].*/, "", g)
	fsw = "S-" tolower(g)
	while (length(fsw) < 18)
		fsw = "S-0" substr(fsw, 3)
	next
}
(file == 2 || file == 4) && /^0x[0-9a-fA-F]+ +[0-9]+ / && fsw != "" {
	lft[k, fsw, hexnum($1)] = $2 + 0
	next
}

# The path from switch sw to dlid in dump k: " SW:PORT" per switch; sets
# ok to 1 when it arrives.
function path(k, sw, dlid,    x, out, nxt, s, hops, seen) {
	ok = 0
	s = ""
	x = sw
	for (hops = 0; hops < 64; hops++) {
		if (swlid[k, x] == dlid) {
			ok = 1
			return s
		}
		if (!((k, x, dlid) in lft) || (x in seen))
			return s
		seen[x] = 1
		out = lft[k, x, dlid]
		s = s " " x ":" out
		if (!((k, x, out) in peer))
			return s
		nxt = peer[k, x, out]
		if (type[nxt] != "sw") {
			ok = calid[k, nxt, peerport[k, x, out]] == dlid
			return s
		}
		x = nxt
	}
	return s
}

# Whether path p (of dump 1) crosses a link not cabled the same way in 2.
function crosses_change(p,    n, i, hop, c, sw, port) {
	n = split(p, hop, " ")
	for (i = 1; i <= n; i++) {
		c = index(hop[i], ":")
		sw = substr(hop[i], 1, c - 1)
		port = substr(hop[i], c + 1) + 0
		if (!((2, sw, port) in peer) || peer[2, sw, port] != peer[1, sw, port] ||
		    peerport[2, sw, port] != peerport[1, sw, port])
			return 1
	}
	return 0
}

END {
	for (i = 1; i <= ncap; i++) {
		e = cap_node[i] SUBSEP cap_port[i]
		entry[i] = ((1, e) in peer) ? peer[1, e] : ""
		if (entry[i] != "" && type[entry[i]] == "sw")
			ncas[entry[i]]++
	}
	pairs = moved = had = broken = 0
	for (sw in ncas)
		for (j = 1; j <= ncap; j++) {
			d = cap_lid[j]
			w = ncas[sw] - (entry[j] == sw)
			if (w == 0)
				continue
			pairs += w
			before = path(1, sw, d)
			if (!ok) {
				printf "routemove: the route %s -> LID %d did not arrive before\n", sw, d
				exit 1
			}
			had += crosses_change(before) ? w : 0
			if (!(d in lid_after) || !((2, sw) in present))
				continue	# the destination or the source switch is gone
			after = path(2, sw, d)
			if (!ok) {
				if (nprint++ < 20)
					printf "routemove: broken after: %s -> LID %d:%s\n", sw, d, after
				broken += w
				continue
			}
			if (after != before)
				moved += w
		}
	printf "routemove: pairs %d moved %d had_to %d broken %d\n", pairs, moved, had, broken
	exit broken > 0
}
