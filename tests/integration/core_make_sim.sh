#!/bin/sh
# make sim as the README tells a newcomer: `make sim` leaves ibsim and
# fabricd running and prints the lines to paste; those lines, run in a
# clean shell from another folder, make fabricctl and an infiniband-diags
# tool work; `make sim-stop` ends both and leaves nothing behind.
#  - the nodes fabricctl lists are the nodes ibnetdiscover finds through
#    the printed environment, and the net file topogen wrote;
#  - after sim-stop no process the simulation started runs, ibsim's
#    socket is gone from /proc/net/unix, and so is the folder.
# Its own folder (SIM_DIR under this test's scratch folder) and ibsim
# socket name: it runs beside any other test.  The build is the one under
# test (O=); `-o all` keeps make from rebuilding it (a sanitized build
# would be remade without its flags).
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup make jq
unset FABRICD_SOCKET SIM_DIR
sd=$T/sim
mk() { make -s --no-print-directory -C "$FABRICD_SRC" -o all O="$FABRICD_BUILD" SIM_DIR="$sd" "$@"; }
fd_on_exit 'mk sim-stop > /dev/null 2>&1'

t0=$(date +%s)
mk sim > "$T/sim.out" 2>&1 || fail "make sim: $(tail -20 "$T/sim.out")"
echo "make sim: $(($(date +%s) - t0)) s: $(head -1 "$T/sim.out")"
# The lines to paste: what make sim printed that is neither its own
# "sim:" chatter nor a comment.
grep -v -e '^sim:' -e '^#' "$T/sim.out" > "$T/lines.sh"
[ "$(wc -l < "$T/lines.sh")" -ge 2 ] && [ "$(wc -l < "$T/lines.sh")" -le 3 ] ||
    fail "make sim printed $(wc -l < "$T/lines.sh") lines to paste, not 2 or 3: $(cat "$T/sim.out")"
for p in ibsim fabricd holder; do
	[ -s "$sd/$p.pid" ] || fail "no $p.pid in SIM_DIR"
done
pids="$(cat "$sd/ibsim.pid") $(cat "$sd/fabricd.pid") $(cat "$sd/holder.pid")"
sockname=$(sed -n 's/.*IBSIM_SOCKNAME="\([^"]*\)".*/\1/p' "$T/lines.sh")
[ -n "$sockname" ] || fail "no IBSIM_SOCKNAME in the printed lines"
grep -q "@$sockname:ctl" /proc/net/unix || fail "ibsim's socket $sockname is not listening"

# A newcomer's shell: nothing of the test's environment, another folder.
mkdir "$T/op"
newcomer() {
	(cd "$T/op" && env -i HOME="$T/op" PATH=/usr/sbin:/usr/bin:/sbin:/bin sh -c \
	    ". '$T/lines.sh' && $1")
}
capture "$T/status.txt" newcomer 'fabricctl status'
grep -q '^    state: up' "$T/status.txt" || fail "status through the lines: $(head -20 "$T/status.txt")"
capture "$T/nodes.json" newcomer 'fabricctl --json nodes'
jq -r '.nodes[].guid' "$T/nodes.json" | sort > "$T/ctl.guids"
capture "$T/nodes.txt" newcomer 'fabricctl nodes'
[ "$(grep -c '^0x' "$T/nodes.txt")" -eq "$(wc -l < "$T/ctl.guids")" ] ||
    fail "fabricctl nodes shows $(grep -c '^0x' "$T/nodes.txt") rows, --json $(wc -l < "$T/ctl.guids")"
capture "$T/ibnet.txt" newcomer 'simdiag timeout 60 ibnetdiscover 2>/dev/null'
guids() {	# FILE: the node GUIDs of an ibnetdiscover-format file, as 0x%016x
	sed -n 's/^\(switchguid\|caguid\)=\(0x[0-9a-f]*\).*/\2/p' "$1" |
	    while read -r g; do printf '0x%016x\n' "$g"; done | sort -u
}
guids "$T/ibnet.txt" > "$T/diag.guids"
guids "$sd/topo.net" > "$T/net.guids"
n=$(wc -l < "$T/net.guids")
[ "$n" -ge 300 ] || fail "the net file has $n nodes"
cmp -s "$T/diag.guids" "$T/net.guids" ||
    fail "ibnetdiscover found $(wc -l < "$T/diag.guids") nodes, the net file has $n"
cmp -s "$T/ctl.guids" "$T/diag.guids" ||
    fail "fabricctl nodes lists $(wc -l < "$T/ctl.guids") nodes, ibnetdiscover $(wc -l < "$T/diag.guids"): $(comm -3 "$T/ctl.guids" "$T/diag.guids" | head -5)"
[ -z "$(ls -A "$T/op")" ] || fail "the diag tool left files in the operator's folder: $(ls -A "$T/op")"

# A second make sim reuses the running one.
mk sim > "$T/again.out" 2>&1 || fail "make sim again: $(cat "$T/again.out")"
grep -q 'already running' "$T/again.out" || fail "make sim again: $(head -3 "$T/again.out")"
[ "$(cat "$sd/fabricd.pid")" = "$(echo "$pids" | cut -d' ' -f2)" ] || fail "make sim again started another fabricd"

mk sim-stop > "$T/stop.out" 2>&1 || fail "make sim-stop: $(cat "$T/stop.out")"
for p in $pids; do
	[ -d "/proc/$p" ] && fail "process $p ($(cat "/proc/$p/comm" 2>/dev/null)) still runs after sim-stop"
done
grep -q "@$sockname:ctl" /proc/net/unix && fail "ibsim's socket $sockname still listens"
[ -e "$sd" ] && fail "SIM_DIR is still there: $(ls -A "$sd")"
echo "make sim: $n nodes, fabricctl and ibnetdiscover agree; sim-stop left nothing"
pass
