# preflight --fanout over 64 simulated hosts, through the test launcher
# (tests/fakes/fanout-launcher, installed as srun, mpirun and ssh): each
# host gets its own sysfs tree and runs the real `fabricctl preflight
# --local`.
#   64 healthy hosts                         -> exit 0, timed (docs/validation.md figure)
#   gpu017 at 1X, gpu042 never answers       -> exit 1 naming gpu017 only,
#   (--timeout 5)                               gpu042 inconclusive, nobody else;
#                                               not waiting for gpu042's launcher
#                                               (it sleeps an hour: a 60 s
#                                               timeout only ends a wait that
#                                               would never end; the time is
#                                               printed, not gated)
#   --format slurm                           -> one drain line, for gpu017
#   mpirun and ssh launchers                 -> the same verdict
#   only a silent host and a healthy one     -> exit 2 (inconclusive)
#   --local on a host whose port is DOWN     -> exit 1, IBPortDown
#   --local on RoCE: a RoCE v2 GID is found  -> exit 0; none -> RoceGidMissing
. "$FABRICD_SRC/tests/lib/common.sh"
fd_setup
R=$T/hosts
mkdir -p "$T/bin" "$R"
for l in srun mpirun ssh; do ln -s "$FABRICD_SRC/tests/fakes/fanout-launcher" "$T/bin/$l"; done
export PATH="$T/bin:$PATH" FANOUT_ROOT="$R" FABRICCTL_REMOTE="$FABRICCTL"

port() {	# HOST STATE RATE
	d=$R/$1/class/infiniband/mlx5_0/ports/1
	mkdir -p "$d"
	echo "$2" > "$d/state"
	echo "5: LinkUp" > "$d/phys_state"
	echo "$3" > "$d/rate"
	echo InfiniBand > "$d/link_layer"
}
for i in $(seq 1 64); do port "$(printf 'gpu%03d' "$i")" "4: ACTIVE" "200 Gb/sec (4X HDR)"; done
ms() { date +%s%3N; }

t0=$(ms)
"$FABRICCTL" --json preflight --hosts 'gpu[001-064]' --fanout srun > "$T/ok.json"; rc=$?
t1=$(ms)
[ $rc -eq 0 ] || fail "64 healthy hosts: exit $rc: $(head -c 2000 "$T/ok.json")"
[ "$(sort -u "$R/started" | wc -l)" = 64 ] || fail "not every host was started: $(sort -u "$R/started" | wc -l)"
echo "64 healthy hosts through srun: $((t1 - t0)) ms"

port gpu017 "4: ACTIVE" "50 Gb/sec (1X HDR)"
touch "$R/gpu042/hang"
rm -f "$R/started"
t0=$(ms)
timeout 60 "$FABRICCTL" --json preflight --hosts 'gpu[001-064]' --fanout srun --timeout 5 > "$T/bad.json"; rc=$?
t1=$(ms)
echo "gpu017 degraded, gpu042 silent, --timeout 5: $((t1 - t0)) ms"
[ $rc -eq 124 ] && fail "--timeout 5 still waiting for the silent host a minute on"
[ $rc -eq 1 ] || fail "exit $rc, not 1: $(head -c 2000 "$T/bad.json")"
flat=$(tr -d ' \n' < "$T/bad.json")
echo "$flat" | grep -q '"code":"IBPortDegraded","host":"gpu017"' ||
    echo "$flat" | sed 's/},{/}\n{/g' | grep '"IBPortDegraded"' | grep -q '"host":"gpu017"' ||
    fail "no IBPortDegraded naming gpu017: $flat"
[ "$(echo "$flat" | sed 's/},{/}\n{/g' | grep -c '"code":')" = 1 ] || fail "faults beyond gpu017: $flat"
echo "$flat" | grep -q '"inconclusive":\["gpu042"\]' || fail "gpu042 is not the one inconclusive host: $flat"
echo "$flat" | grep -q '{"host":"gpu042","verdict":"inconclusive","detail":"noanswerwithin5s"}' ||
    fail "gpu042's verdict: $flat"

"$FABRICCTL" preflight --hosts 'gpu[001-064]' --fanout srun --timeout 5 --format slurm > "$T/drain"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < "$T/drain")" = 1 ] &&
    grep -q '^scontrol update nodename=gpu017 state=drain reason="fabricd: IBPortDegraded gpu017 mlx5_0/1"$' "$T/drain" ||
    fail "--format slurm: exit $rc: $(cat "$T/drain")"

for l in mpirun ssh; do
	"$FABRICCTL" --json preflight --hosts 'gpu016, gpu017,gpu018' --fanout $l > "$T/$l.json"; rc=$?
	[ $rc -eq 1 ] && tr -d ' \n' < "$T/$l.json" | grep -q '"IBPortDegraded","host":"gpu017"' ||
	    fail "--fanout $l: exit $rc: $(cat "$T/$l.json")"
done

"$FABRICCTL" preflight --hosts gpu001,gpu042 --fanout ssh --timeout 1 > "$T/inc"; rc=$?
[ $rc -eq 2 ] && grep -q 'gpu042: inconclusive: no answer within 1 s' "$T/inc" ||
    fail "a silent host alone: exit $rc: $(cat "$T/inc")"

port down1 "1: DOWN" "10 Gb/sec (4X SDR)"
FABRICCTL_HOST=down1 FABRICCTL_SYSFS_ROOT=$R/down1 "$FABRICCTL" preflight --local > "$T/down"; rc=$?
[ $rc -eq 1 ] && grep -q 'IBPortDown: mlx5_0 port 1 is DOWN (LinkUp), not ACTIVE' "$T/down" ||
    fail "--local with a DOWN port: exit $rc: $(cat "$T/down")"
# RoCE ports: --local wants a RoCE v2 GID (what NCCL_IB_GID_INDEX names)
roce() {	# HOST TYPE...: an Ethernet port with these GID types at 0, 1...
	h=$1; shift
	d=$R/$h/class/infiniband/mlx5_0/ports/1
	mkdir -p "$d/gid_attrs/types"
	echo "4: ACTIVE" > "$d/state"; echo "5: LinkUp" > "$d/phys_state"
	echo "100 Gb/sec (4X EDR)" > "$d/rate"; echo Ethernet > "$d/link_layer"
	i=0
	for t in "$@"; do echo "$t" > "$d/gid_attrs/types/$i"; i=$((i + 1)); done
}
roce roce1 "IB/RoCE v1" "RoCE v2"
roce roce2 "IB/RoCE v1"
FABRICCTL_HOST=roce1 FABRICCTL_SYSFS_ROOT=$R/roce1 "$FABRICCTL" --json preflight --local > "$T/r1"; rc=$?
[ $rc -eq 0 ] && tr -d ' \n' < "$T/r1" | grep -q '"roce_v2_gid_index":1' || fail "RoCE v2 at GID 1: exit $rc: $(cat "$T/r1")"
tr -d ' \n' < "$T/r1" | grep -q '"nccl_env":{"NCCL_IB_HCA":"=mlx5_0:1","NCCL_IB_GID_INDEX":"1"}' ||
    fail "the NCCL environment roce1 would export: $(cat "$T/r1")"
FABRICCTL_HOST=roce2 FABRICCTL_SYSFS_ROOT=$R/roce2 "$FABRICCTL" preflight --local > "$T/r2"; rc=$?
[ $rc -eq 1 ] && grep -q 'RoceGidMissing: mlx5_0 port 1 has no RoCE v2 GID' "$T/r2" ||
    fail "no RoCE v2 GID: exit $rc: $(cat "$T/r2")"
pass
