#!/bin/sh
# make demo: fabricd on a simulated fabric, unattended, then stopped.
#   1. generate a 2-level fat tree: 18 leaves x 18 hosts, 18 spines (324 hosts)
#   2. start ibsim on it (its own socket name, console FIFO)
#   3. start fabricd with the SM attached to host1
#   4. wait until `fabricctl status` reports the subnet up
#   5. show `fabricctl status` and a few `fabricctl ports`
#   6. stop everything and remove the scratch folder
# Usage: tools/demo.sh BUILD_DIR   (FABRICD_DEMO_KEEP=1 keeps the folder)
set -u
build=$(cd "${1:-build}" && pwd) || exit 2
src=$(cd "$(dirname "$0")/.." && pwd)
export FABRICD_BUILD=$build FABRICD_SRC=$src
. "$src/tests/lib/ibsim.sh"
sim_available || { echo "demo: ibsim (ibsim-utils) is not installed; run make deps"; exit 1; }

FD=
cleanup() {
	if [ -n "$FD" ]; then
		kill "$FD" 2>/dev/null
		wait "$FD" 2>/dev/null
	fi
	[ -n "${FABRICD_DEMO_KEEP:-}" ] && SIM_KEEP=1 && echo "demo: kept $SIM_DIR"
	sim_stop
}
trap cleanup EXIT
trap 'exit 1' INT TERM

step() { printf '\n== %s\n' "$*"; }

step "generating a 2-level fat tree: 18 leaves x 18 hosts, 18 spines"
sim_topology -k 18 -h 18 -s 18 || exit 1
head -1 "$SIM_DIR/topo.net"

step "starting ibsim"
sim_start || exit 1
echo "ibsim pid $SIM_PID, socket name $IBSIM_SOCKNAME"

step "starting fabricd with the subnet manager on host1"
cat > "$SIM_DIR/fabricd.yaml" <<EOF
socket: $SIM_DIR/fabricd.sock
state_dir: $SIM_DIR/state
log_level: notice
sm:
  enabled: true
EOF
t0=$(date +%s.%N)
(cd "$SIM_DIR/run" && SIM_HOST=host1 LD_PRELOAD=$SIM_PRELOAD \
    exec "$build/fabricd" -c "$SIM_DIR/fabricd.yaml" > "$SIM_DIR/fabricd.log" 2>&1) &
FD=$!
ctl() { "$build/fabricctl" -s "$SIM_DIR/fabricd.sock" "$@"; }

i=0
state=
while [ $i -lt 600 ]; do	# 60 s at most
	kill -0 "$FD" 2>/dev/null || { echo "demo: fabricd exited:"; tail -5 "$SIM_DIR/fabricd.log"; exit 1; }
	js=$(ctl --json status 2>/dev/null | tr -d ' \n\t')
	state=$(printf '%s' "$js" | sed -n 's/.*"subnet":{"state":"\([a-z]*\)".*/\1/p')
	[ "$state" = up ] && break
	case $js in *'"notimplemented"'*) state="no-sm"; break ;; esac
	i=$((i + 1))
	sleep 0.1
done
t1=$(date +%s.%N)
case $state in
up) echo "subnet up after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s" ;;
no-sm) echo "this build's SM is not implemented yet: showing the daemon alone" ;;
*) echo "demo: the subnet did not come up within 60 s"; ctl status; exit 1 ;;
esac

step "fabricctl status"
ctl status

if [ "$state" = up ]; then
	step "fabricctl ports sw-l1 (first lines)"
	ctl ports sw-l1 | head -12
	step "cross-check with infiniband-diags: sminfo from host2"
	sim_diag -H host2 sminfo
fi

step "stopping fabricd and ibsim"
kill "$FD" && wait "$FD"
FD=
echo "demo: done"
