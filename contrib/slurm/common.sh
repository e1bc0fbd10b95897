# Sourced by fabricd's Slurm scripts (docs/slurm.md); not run on its own.
#
# Slurm starts its prologs and epilogs with an environment of its own, not
# slurmctld's or slurmd's, so what the scripts need comes from one file:
# /etc/default/fabricd-slurm (FABRICD_SLURM_CONF names another), shell
# assignments of
#   FABRICCTL             the client (default fabricctl, on PATH)
#   FABRICCTL_ARGS        how it reaches fabricd: "--client-config FILE" for
#                         the remote channel (a jobs certificate on the
#                         slurmctld host, a read one on the nodes), or
#                         "-s SOCKET" for the SM node's Unix socket
#   FABRICD_SLURM_SPOOL   where a node keeps each job's environment for its
#                         tasks (default /run/fabricd/slurm)
# slurmctld gives PrologSlurmctld and EpilogSlurmctld no PATH at all
PATH=${PATH:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}
export PATH
FABRICD_SLURM_CONF=${FABRICD_SLURM_CONF:-/etc/default/fabricd-slurm}
# shellcheck disable=SC1090
[ -r "$FABRICD_SLURM_CONF" ] && . "$FABRICD_SLURM_CONF"
FABRICCTL=${FABRICCTL:-fabricctl}
FABRICCTL_ARGS=${FABRICCTL_ARGS:-}
FABRICD_SLURM_SPOOL=${FABRICD_SLURM_SPOOL:-/run/fabricd/slurm}

# Said to syslog and to stderr (Slurm's log of the script, where it keeps one).
say() {
	echo "fabricd-slurm: $*" >&2
	command -v logger >/dev/null 2>&1 && logger -t fabricd-slurm -- "$*" 2>/dev/null
	return 0
}

# fabricctl with the site's arguments; its output on stdout, its error said.
fctl() {
	# shellcheck disable=SC2086
	"$FABRICCTL" $FABRICCTL_ARGS "$@"
}

need_job() {
	case ${SLURM_JOB_ID:-} in
	''|*[!0-9A-Za-z_.-]*) say "SLURM_JOB_ID '${SLURM_JOB_ID:-}' is not a job id"; exit 1 ;;
	esac
}
