# Replay the LinearForwardingTable Sets an SM sent, in the order it sent
# them, over the tables the switches held before, and walk every CA pair
# after each Set: the transition a fabric went through, not only its end.
#
#   awk -v sm=host1 -f lftreplay.awk DISC FTS_BEFORE MADLOG FTS_AFTER
#
# DISC: `ibnetdiscover` of the cabling while the Sets land (directed routes
# are resolved over it from the CA named by sm); FTS_BEFORE / FTS_AFTER:
# `dump_fts` before the change and after it settled; MADLOG: the lines
# tests/fixtures/mad/madlog.c wrote with MADLOG_PAYLOAD=1 (only directed
# LinearForwardingTable Sets, " lft=" lines, are replayed).
# Prints "lftreplay: sets N broken_before B worsened W final F equal E":
# B pairs whose route did not arrive before the first Set, W the Sets
# after which more pairs were broken than before them (a route moved onto
# a way not written yet), F broken pairs at the end, E 1 when the replayed
# tables equal FTS_AFTER.  Exit 1 when W > 0, F > 0 or E is 0.

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
	s = tolower(s)
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++)
		n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return n
}

function sw_of_dump(line,    g, id) {
	g = line
	sub(/.* guid 0x/, "", g)
	sub(/[^0-9a-fA-F].*/, "", g)
	id = "S-" tolower(g)
	while (length(id) < 18)
		id = "S-0" substr(id, 3)
	return id
}

FNR == 1 { file++; cur = ""; fsw = "" }

file == 1 && /^(Switch|Ca|Rt)[ \t]/ {
	split($0, q, "\"")
	cur = q[2]
	type[cur] = ($1 == "Switch") ? "sw" : "ca"
	if (q[4] == sm || index(q[4], sm " ") == 1)
		smnode = cur
	if (type[cur] == "sw") {
		split($0, h, "#")
		l = field_after(h[2], " lid ") + 0
		if (l)
			swlid[cur] = l
	}
	next
}
file == 1 && /^\[/ && cur != "" {
	p = substr($0, 2) + 0
	split($0, q, "\"")
	peer[cur, p] = q[2]
	peerport[cur, p] = substr(q[3], index(q[3], "[") + 1) + 0
	if (type[cur] == "ca") {
		split($0, h, "#")
		l = field_after(h[2], "lid ") + 0
		if (l) {
			calid[cur, p] = l
			ncap++
			cap_node[ncap] = cur
			cap_port[ncap] = p
			cap_lid[ncap] = l
		}
	}
	next
}
file == 1 && /^$/ { cur = "" }

(file == 2 || file == 4) && /^Unicast lids/ { fsw = sw_of_dump($0); next }
(file == 2 || file == 4) && /^0x[0-9a-fA-F]+ +[0-9]+ / && fsw != "" {
	if (file == 2)
		lft[fsw, hexnum($1)] = $2 + 0
	else
		want[fsw, hexnum($1)] = $2 + 0
	next
}

# madlog: "0x81 0x02 0x0019 MOD MKEY DLID PATH ... lft=HEX"
file == 3 && $1 == "0x81" && $2 == "0x02" && $3 == "0x0019" && index($0, " lft=") {
	nset++
	set_mod[nset] = hexnum($4)
	set_path[nset] = $7
	hx = $0
	sub(/.* lft=/, "", hx)
	sub(/ .*/, "", hx)
	set_data[nset] = hx
	next
}

# The switch a directed route (madlog's "0,P1,P2,...") leads to from sm.
function resolve(path,    n, hop, i, x, p) {
	n = split(path, hop, ",")
	x = smnode
	for (i = 2; i <= n; i++) {
		p = hop[i] + 0
		if (!((x, p) in peer))
			return ""
		x = peer[x, p]
	}
	return x
}

# Whether the route from switch sw to dlid arrives, by the tables now.
function arrives(sw, dlid,    x, out, hops, nxt) {
	x = sw
	for (hops = 0; hops < 64; hops++) {
		if (swlid[x] == dlid)
			return 1
		if (!((x, dlid) in lft))
			return 0
		out = lft[x, dlid]
		if (!((x, out) in peer))
			return 0
		nxt = peer[x, out]
		if (type[nxt] != "sw")
			return calid[nxt, peerport[x, out]] == dlid
		x = nxt
	}
	return 0
}

function broken(    sw, j, w, n) {
	n = 0
	for (sw in ncas)
		for (j = 1; j <= ncap; j++) {
			w = ncas[sw] - (entry[j] == sw)
			if (w && !arrives(sw, cap_lid[j]))
				n += w
		}
	return n
}

END {
	if (smnode == "") {
		print "lftreplay: no CA named " sm > "/dev/stderr"
		exit 1
	}
	for (i = 1; i <= ncap; i++) {
		e = cap_node[i] SUBSEP cap_port[i]
		entry[i] = (e in peer) ? peer[e] : ""
		if (entry[i] != "" && type[entry[i]] == "sw")
			ncas[entry[i]]++
	}
	b0 = last = broken()
	worse = 0
	for (s = 1; s <= nset; s++) {
		sw = resolve(set_path[s])
		if (sw == "" || type[sw] != "sw") {
			printf "lftreplay: Set %d: route %s leads to no switch\n", s, set_path[s]
			exit 1
		}
		for (i = 0; i < 64; i++) {
			port = hexnum(substr(set_data[s], 2 * i + 1, 2))
			lid = set_mod[s] * 64 + i
			if (port == 255)
				delete lft[sw, lid]
			else
				lft[sw, lid] = port
		}
		now = broken()
		if (now > last) {
			if (worse < 5)
				printf "lftreplay: Set %d (block %d of %s) broke %d more pairs\n", s,
				    set_mod[s], sw, now - last
			worse++
		}
		last = now
	}
	equal = 1
	for (k in want)
		if (!(k in lft) || lft[k] != want[k])
			equal = 0
	for (k in lft)
		if (!(k in want))
			equal = 0
	printf "lftreplay: sets %d broken_before %d worsened %d final %d equal %d\n", nset, b0, worse,
	    last, equal
	exit worse > 0 || last > 0 || !equal
}
