/*
 * Opening the engine's port: finding it among the devices, and the agents
 * registered on it (mad/port_open.h).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>
#include <umad.h>

#include "common/guid.h"
#include "common/log.h"
#include "mad/mad.h"
#include "mad/port_open.h"

int
mad_find_port(uint64_t want, bool optional, char *ca_out, int *port_out, uint64_t *guid_out)
{
	char cas[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	int ncas, i, j;

	if ((ncas = umad_get_cas_names(cas, UMAD_MAX_DEVICES)) <= 0) {
		if (optional)
			log_debug("mad: no InfiniBand devices");
		else
			log_warnx("mad: no InfiniBand devices");
		return -1;
	}
	for (i = 0; i < ncas; i++) {
		__be64 guids[UMAD_CA_MAX_PORTS + 1];
		int n = umad_get_ca_portguids(cas[i], guids, UMAD_CA_MAX_PORTS + 1);

		for (j = 1; j < n; j++) {
			uint64_t g = be64toh(guids[j]);
			if (g == 0 || (want && g != want))
				continue;
			memcpy(ca_out, cas[i], UMAD_CA_NAME_LEN);
			ca_out[UMAD_CA_NAME_LEN - 1] = 0;
			*port_out = j;
			*guid_out = g;
			return 0;
		}
	}
	log_warnx("mad: no port with GUID " GUID_FMT, want);
	return -1;
}

_Static_assert(MAD_CA_NAME_LEN == UMAD_CA_NAME_LEN, "mad.h's device name length");

int
mad_find_ca_port(const char *ca, int port, char *ca_out, int *port_out, uint64_t *guid_out)
{
	__be64 guids[UMAD_CA_MAX_PORTS + 1];
	int n = umad_get_ca_portguids(ca, guids, UMAD_CA_MAX_PORTS + 1);

	if (n <= 0) {
		log_warnx("mad: no InfiniBand device %s", ca);
		return -1;
	}
	if (port < 1 || port >= n || guids[port] == 0) {
		log_warnx("mad: %s has no port %d", ca, port);
		return -1;
	}
	snprintf(ca_out, UMAD_CA_NAME_LEN, "%s", ca);
	*port_out = port;
	*guid_out = be64toh(guids[port]);
	return 0;
}

/*
 * Which requests an agent takes.  The kernel hands a request (a MAD that
 * is no response) only to the agent whose method mask names its method;
 * responses reach the agent that sent the request whatever its mask.  An
 * agent registered without a mask hears nothing but its own answers:
 * an SM would get no SMInfo from other SMs and no trap, an SA no query.
 * So the SM takes SubnGet, SubnSet and Trap on both SMP classes and the
 * SA's query methods, as OpenSM binds them (is_responder,
 * is_trap_processor); an observer, whose port another SM may share,
 * takes only the SA's Reports to its subscriptions.  Where another agent
 * on the port holds the methods already (an SM beside us, the kernel's
 * ib_sa for Reports) the registration is refused: the agent is registered
 * again without them, and the log says what will not arrive.  umad2sim
 * ignores masks (shared notes 7.5): tests/integration/core_mad_agents.sh
 * reads them below the API.
 */
#define METHOD(m)	(1ULL << (m))
#define SMP_REQUESTS	(METHOD(IB_MAD_METHOD_GET) | METHOD(IB_MAD_METHOD_SET) | \
			    METHOD(IB_MAD_METHOD_TRAP))
#define SA_REQUESTS	(METHOD(IB_MAD_METHOD_GET) | METHOD(IB_MAD_METHOD_SET) | \
			    METHOD(IB_MAD_METHOD_GETTABLE) | METHOD(IB_MAD_METHOD_GETTRACETABLE) | \
			    METHOD(IB_MAD_METHOD_GETMULTI) | METHOD(IB_MAD_METHOD_DELETE))
#define SA_REPORTS	METHOD(IB_MAD_METHOD_REPORT)

/* An agent of class (not the SA) taking the requests in methods (methods
 * 0-63: every request method is), without them when they are refused. */
static int
register_class(int fd, uint8_t mclass, uint8_t version, uint64_t methods, const char *what)
{
	long mask[16 / sizeof(long)] = { 0 };
	int id;

	for (unsigned m = 0; m < 64; m++)
		if (methods & METHOD(m))
			mask[m / (8 * sizeof(long))] |= 1L << (m % (8 * sizeof(long)));
	if (methods == 0 || (id = umad_register(fd, mclass, version, 0, mask)) < 0) {
		if (methods != 0)
			log_warnx("mad: class 0x%02x: another agent on this port takes %s; "
			    "registered for answers only, %s will not reach fabricd", mclass, what, what);
		id = umad_register(fd, mclass, version, 0, NULL);
	}
	return id;
}

/*
 * The SA agent, registered for kernel RMPP (rmpp_version 1, no
 * UMAD_USER_RMPP) as OpenSM registers it: answers longer than a MAD are
 * handed to umad_send() whole, and answers to us come reassembled.
 * Whether the kernel does RMPP is probed first: registration flags
 * (IB_USER_MAD_REGISTER_AGENT2, Linux 3.19 and later) are offered by
 * every kernel this runs on but not by ibsim's umad2sim, which also does
 * no RMPP and cuts every send to 256 bytes.  Without them the SA frames
 * one segment itself (sm/sa/sa.h) and an observer reads record by record.
 */
static int
register_sa(int fd, bool serve, bool *kernel_rmpp)
{
	struct umad_reg_attr probe = {
		.mgmt_class = IB_MCLASS_SUBN_ADM, .mgmt_class_version = 2,
		.flags = UMAD_USER_RMPP, .rmpp_version = 1,
	};
	struct umad_reg_attr attr = {
		.mgmt_class = IB_MCLASS_SUBN_ADM, .mgmt_class_version = 2, .rmpp_version = 1,
	};
	const char *what = serve ? "the SA's queries" : "the SA's Reports";
	uint64_t methods = serve ? SA_REQUESTS : SA_REPORTS;
	uint32_t id;

	*kernel_rmpp = false;
	if (umad_register2(fd, &probe, &id) == 0) {
		umad_unregister(fd, (int)id);
		*kernel_rmpp = true;
	}
	attr.method_mask[0] = methods;
	if (umad_register2(fd, &attr, &id) != 0) {
		log_warnx("mad: class 0x03: another agent on this port takes %s; registered for "
		    "answers only, %s will not reach fabricd", what, what);
		attr.method_mask[0] = 0;
		if (umad_register2(fd, &attr, &id) != 0) {
			*kernel_rmpp = false;
			return -1;
		}
	}
	log_info("mad: SA agent registered with RMPP version 1 (%s)", *kernel_rmpp ?
	    "the kernel segments long answers" : "no registration flags: umad2sim, one MAD an answer");
	return (int)id;
}

/*
 * Every class that can arrive needs an agent before we become SM: under
 * umad2sim a MAD for a class nobody registered crashes the process.  The
 * kernel allows 32 agents per fd; the SM's classes come first and the
 * vendor ranges take what is left (their failure is not fatal).  Only the
 * SMP and SA agents take requests (above); the others are there for
 * umad2sim, and take answers only.  With an SMI/GSI pair (smi_fd >= 0)
 * the SMP classes go on the SMI port, which carries nothing else, and
 * every other class on the GSI port fd, which refuses SMPs.
 */
int
mad_register_agents(int fd, int smi_fd, bool serve, int agent[256], bool *kernel_rmpp)
{
	static const struct { uint8_t mclass, version; bool required; } cls[] = {
		{ IB_MCLASS_SUBN_LID, 1, true }, { IB_MCLASS_SUBN_DIR, 1, true },
		{ IB_MCLASS_SUBN_ADM, 2, false }, { IB_MCLASS_PERF, 1, false },
		{ IB_MCLASS_COMM_MGMT, 2, false }, { IB_MCLASS_BM, 1, false },
		{ IB_MCLASS_DEV_MGMT, 1, false }, { IB_MCLASS_SNMP, 1, false },
		{ 0x05, 1, false }, { 0x21, 2, false },
	};
	size_t i;
	int c;

	for (i = 0; i < 256; i++)
		agent[i] = -1;
	for (i = 0; i < sizeof(cls) / sizeof(cls[0]); i++) {
		uint8_t mc = cls[i].mclass;
		bool smp = mc == IB_MCLASS_SUBN_LID || mc == IB_MCLASS_SUBN_DIR;
		int on = smp && smi_fd >= 0 ? smi_fd : fd;
		int id = mc == IB_MCLASS_SUBN_ADM ? register_sa(fd, serve, kernel_rmpp) :
		    register_class(on, mc, cls[i].version, smp && serve ? SMP_REQUESTS : 0,
		    "SMInfo and traps");
		if (id < 0 && cls[i].required) {
			log_warnx("mad: cannot register class 0x%02x", mc);
			return -1;
		}
		agent[mc] = id;
	}
	for (c = IB_MCLASS_VENDOR_LOW_RANGE_MIN; c <= IB_MCLASS_VENDOR_LOW_RANGE_MAX; c++)
		agent[c] = umad_register(fd, c, 1, 0, NULL);
	for (c = IB_MCLASS_VENDOR_HIGH_RANGE_MIN; c <= IB_MCLASS_VENDOR_HIGH_RANGE_MAX; c++) {
		uint8_t oui[3] = { 0 };
		if ((agent[c] = umad_register_oui(fd, c, 0, oui, NULL)) < 0)
			break;		/* out of agents */
	}
	return 0;
}
