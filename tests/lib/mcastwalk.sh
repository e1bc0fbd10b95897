# Multicast tree checks from what the switches hold (sourced after
# tests/lib/ibsim.sh).  Nothing here asks the SM under test: the cabling
# comes from `ibnetdiscover -p`, each switch's MFT from `ibroute -M`.
#
#   mc_dump               cabling and every switch's MFT into $SIM_DIR/mc.txt
#   mc_check_tree MLID CA_LIDS...
#                         the MLID's ports form one loop-free tree over the
#                         switches that reaches every CA LID given and no
#                         other CA port (prints what is wrong)

# mc.txt lines: "L SWLID PORT TYPE RLID RPORT" for every cabled switch port,
# "M SWLID MLID PORT..." for every MFT entry ibroute -M prints.
mc_dump() {
	# "SW 13 5 0x... 4x QDR - SW 16 1 0x... ( ... )": width and speed
	# are two fields; a port not cabled has nothing after the dash.
	sim_diag -t 30 ibnetdiscover -p | awk '$7 != "-" || NF < 10 { next }
	    $1 == "SW" { print "L", $2, $3, $8, $9, $10 }
	    $1 == "CA" && $8 == "SW" { print "L", $9, $10, "CA", $2, $3 }' \
	    > "$SIM_DIR/mc.txt" || return 1
	grep -q '^L' "$SIM_DIR/mc.txt" || { echo "mc_dump: no cabling from ibnetdiscover -p"; return 1; }
	for lid in $(awk '$1 == "L" { print $2 }' "$SIM_DIR/mc.txt" | sort -un); do
		sim_diag -t 20 ibroute -M "$lid" | awk -v sw="$lid" '
		    /Ports:/ { base = index($0, "Ports:") + 7; next }
		    /^0x[cC]/ { line = "M " sw " " tolower($1)
			for (c = base; c <= length($0); c += 2)
				if (substr($0, c, 1) == "x") line = line " " (c - base) / 2
			print line }' >> "$SIM_DIR/mc.txt" || return 1
	done
}

mc_check_tree() {
	mlid=$(printf '0x%04x' "$1")
	shift
	awk -v mlid="$mlid" -v members="$*" '
	$1 == "L" { peer[$2 " " $3] = $4 " " $5 " " $6; next }
	$1 == "M" && $3 == mlid { for (i = 4; i <= NF; i++) set[$2 " " $i] = 1; sw[$2] = 1; next }
	END {
		n = split(members, m, " ")
		for (i = 1; i <= n; i++) want[m[i]] = 1
		for (k in set) {
			split(k, a, " ")
			if (a[2] == 0) continue
			if (!(k in peer)) { print "port " k " set but not cabled"; bad = 1; continue }
			split(peer[k], p, " ")
			if (p[1] == "CA") {
				if (!(p[2] in want)) { print "CA LID " p[2] " (switch " k ") gets the group"; bad = 1 }
				reached[p[2]] = 1
			} else {
				if (!((p[2] " " p[3]) in set)) { print "edge " k " -> " p[2] " " p[3] " one-way"; bad = 1 }
				adj[a[1]] = adj[a[1]] " " p[2]; edges++
			}
		}
		for (i = 1; i <= n; i++) if (!(m[i] in reached)) { print "member LID " m[i] " not reached"; bad = 1 }
		nsw = 0; for (s in sw) { nsw++; root = s }
		edges /= 2
		if (nsw && edges != nsw - 1) { print nsw " switches, " edges " links: not a tree"; bad = 1 }
		# connected: walk from one switch
		seen[root] = 1; q[1] = root; h = 1; t = 1
		while (h <= t) { split(adj[q[h++]], nb, " "); for (j in nb) if (!(nb[j] in seen)) { seen[nb[j]] = 1; q[++t] = nb[j] } }
		if (nsw && t != nsw) { print "tree not connected: " t " of " nsw " switches"; bad = 1 }
		exit bad
	}' "$SIM_DIR/mc.txt"
}
