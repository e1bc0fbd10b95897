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
#
#   awk -v loads=1 -f lftwalk.awk DISC FTS           also the routes that
# cross each inter-switch link direction, after the pairs line:
#   "loads: max M links K idle I bound B hottest NAME[P]->NAME[Q]"
# M the busiest link direction, K the link directions, I those no route
# crosses, B the largest lower bound ceil(L*(N-L)/u) over the leaves (L CA
# ports, u cabled uplinks to switches, N CA ports in all).
#
#   awk -v rails=1 ...   only pairs of one rail (a CA's rail: the N of a
# description ending "-rN", else 1), and the bound per rail (N the rail's
# CA ports): how rail-local traffic (NCCL's) loads the links.
#
#   awk -v cdg=1 -f lftwalk.awk DISC FTS             also the credit-loop
# check: the channel dependency graph of the CA-to-CA routes (a channel is
# an inter-switch link direction; a route that enters a switch by channel
# a and leaves by b makes b a dependency of a) must have no cycle:
#   "cdg: channels C dependencies D acyclic"  or
#   "cdg: channels C dependencies D cycle NAME[P] NAME[P] ..." (exit 1)

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
function walk(node, port, dlid,    cur, out, seen, hops, prev, ch) {
	walk_err = ""
	walk_path = ""
	walk_links = ""
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
		if (loads && type[peer[cur, out]] == "sw") {
			load[cur, out]++
			walk_links = walk_links " " cur SUBSEP out
		}
		if (cdg && type[peer[cur, out]] == "sw") {
			ch = cur SUBSEP out
			if (prev != "" && !((prev, ch) in dep)) {
				dep[prev, ch] = 1
				succ[prev] = succ[prev] " " ch_id(ch)
				ndep++
			}
			prev = ch
		}
		last_in = peerport[cur, out]
		cur = peer[cur, out]
	}
}

# walk(), remembered by (first switch, dlid): from a CA port the walk is
# decided by the switch it enters and the LID alone, so every CA port of a
# leaf walks to a LID the same way; a walk repeated gives what the first
# gave (result, error, hops, crossings) and, at the end, its links' loads
# (replay_loads).  The dependencies of the cdg mode are a set: the first
# walk added them all.
function walk_memo(node, port, dlid,    first, key, r, c0) {
	if (calid[node, port] == dlid || !((node, port) in peer))
		return walk(node, port, dlid)
	first = peer[node, port]
	if (type[first] != "sw")
		return walk(node, port, dlid)
	key = first SUBSEP dlid
	if (key in memo_r) {
		walk_err = memo_err[key]
		if (memo_r[key])
			walk_hops = memo_hops[key]
		crossed += memo_crossed[key]
		if (loads)
			memo_mult[key]++
		return memo_r[key]
	}
	c0 = crossed
	r = walk(node, port, dlid)
	memo_r[key] = r
	memo_err[key] = walk_err
	memo_hops[key] = walk_hops
	memo_crossed[key] = crossed - c0
	if (loads)
		memo_links[key] = walk_links
	return r
}

function replay_loads(    key, n, k, l) {
	for (key in memo_mult) {
		n = split(memo_links[key], l, " ")
		for (k = 1; k <= n; k++)
			load[l[k]] += memo_mult[key]
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
	for (i = 1; i <= ncaports; i++) {	# the switch a CA port enters ("" if none)
		entry[i] = ""
		if ((caport_node[i], caport_num[i]) in peer && type[peer[caport_node[i], caport_num[i]]] == "sw")
			entry[i] = peer[caport_node[i], caport_num[i]]
	}
	for (i = 1; i <= ncaports; i++)
		for (j = 1; j <= ncaports; j++) {
			if (i == j || (rails && rail_of(caport_node[i]) != rail_of(caport_node[j])))
				continue
			key = entry[i] SUBSEP caport_lid[j]
			if (entry[i] != "" && caport_lid[i] != caport_lid[j] && (key in memo_r)) {
				r = memo_r[key]	# walk_memo's hit, inline: 1.7 M pairs on 1,296 hosts
				walk_err = memo_err[key]
				if (r)
					walk_hops = memo_hops[key]
				crossed += memo_crossed[key]
				if (loads)
					memo_mult[key]++
			} else
				r = walk_memo(caport_node[i], caport_num[i], caport_lid[j])
			if (r) {
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
	if (loads) {
		replay_loads()
		print_loads()
	}
	if (cdg && !check_cdg())
		exit 1
	if (avoid != "")
		printf "lftwalk: %d routes cross %s\n", crossed, avoid
	exit (bad > 0 || ok == 0 || crossed > 0)
}

function rail_of(node,    d) {
	d = name[node]
	return match(d, /-r[0-9]+$/) ? substr(d, RSTART + 2) + 0 : 1
}

# The per-link figures of the loads mode (see the top of this file).
function print_loads(    k, kp, m, hot, nl, idle, n, sw, l, u, b, bound, i, nr, rl) {
	m = 0; nl = 0; idle = 0
	for (k in peer) {
		split(k, kp, SUBSEP)
		if (type[kp[1]] != "sw" || type[peer[k]] != "sw")
			continue
		nl++
		if (!(k in load)) {
			idle++
			continue
		}
		if (load[k] > m) {
			m = load[k]
			hot = name[kp[1]] "[" kp[2] "]->" name[peer[k]] "[" peerport[k] "]"
		}
	}
	for (k in peer) {
		split(k, kp, SUBSEP)
		if (type[kp[1]] != "sw")
			continue
		if (type[peer[k]] == "ca") {
			nca[kp[1]]++
			swrail[kp[1]] = rail_of(peer[k])
		} else
			nup[kp[1]]++
	}
	for (i = 1; i <= ncaports; i++)
		nr[rail_of(caport_node[i])]++
	bound = 0
	for (sw in nca) {
		l = nca[sw]; u = nup[sw]
		if (u == 0)
			continue
		rl = rails ? nr[swrail[sw]] : ncaports
		b = int((l * (rl - l) + u - 1) / u)
		if (b > bound)
			bound = b
	}
	printf "loads: max %d links %d idle %d bound %d hottest %s\n", m, nl, idle, bound, hot
}

# Channels get small numbers, so that successor lists are plain strings.
function ch_id(ch) {
	if (!(ch in chnum)) {
		chnum[ch] = ++nch
		chname[nch] = ch
	}
	return chnum[ch]
}

# Depth-first search for a cycle, iterative (awk has no deep recursion to
# spare): colour 1 on the stack, 2 done.  Prints the cdg line.
function check_cdg(    i, c, top, stk, pos, nxt, lst, n, k, cyc, kp) {
	for (c in succ)
		ch_id(c)
	for (i = 1; i <= nch; i++) {
		if (colour[i])
			continue
		top = 1; stk[1] = i; pos[1] = 0; colour[i] = 1
		while (top > 0) {
			c = stk[top]
			n = split(succ[chname[c]], lst, " ")
			if (pos[top] >= n) {
				colour[c] = 2
				top--
				continue
			}
			nxt = lst[++pos[top]] + 0
			if (colour[nxt] == 1) {
				cyc = ""
				for (k = top; k >= 1 && stk[k] != nxt; k--)
					;
				for (; k <= top; k++) {
					split(chname[stk[k]], kp, SUBSEP)
					cyc = cyc " " name[kp[1]] "[" kp[2] "]"
				}
				printf "cdg: channels %d dependencies %d cycle%s\n", nch, ndep, cyc
				return 0
			}
			if (!colour[nxt]) {
				colour[nxt] = 1
				stk[++top] = nxt
				pos[top] = 0
			}
		}
	}
	printf "cdg: channels %d dependencies %d acyclic\n", nch, ndep
	return 1
}
