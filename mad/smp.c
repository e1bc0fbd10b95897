/*
 * The one place an SMP header is built (mad/mad.h): class by route,
 * permissive DrSLID/DrDLID for directed routes, and the destination
 * port's M_Key, so that every SMP fabricd sends carries it (and no
 * PortInfo Set writes a key of 0 over it).
 */
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "mad/mad.h"

void
mad_smp_build(uint8_t *mad, const struct mad_addr *addr, uint8_t method, uint16_t attr_id,
    uint32_t attr_mod, const void *data, uint64_t mkey)
{
	ib_smp_t *smp = (ib_smp_t *)mad;

	memset(mad, 0, MAD_SIZE);
	smp->base_ver = 1;
	smp->class_ver = 1;
	smp->method = method;
	smp->attr_id = htobe16(attr_id);
	smp->attr_mod = htobe32(attr_mod);
	smp->m_key = htobe64(mkey);
	if (addr->directed) {
		/* DR with permissive DrSLID/DrDLID: ibsim drops anything else
		 * silently, and LID routing fails before ports are ACTIVE. */
		smp->mgmt_class = IB_MCLASS_SUBN_DIR;
		smp->hop_count = addr->hops;
		smp->dr_slid = 0xFFFF;
		smp->dr_dlid = 0xFFFF;
		memcpy(smp->initial_path + 1, addr->path + 1, addr->hops);
	} else
		smp->mgmt_class = IB_MCLASS_SUBN_LID;
	if (data)
		memcpy(smp->data, data, IB_SMP_DATA_SIZE);
	/* A PortInfo Set built from a Get (which hides the key at protection
	 * 1 and up) must not clear the port's key: whoever sends it. */
	if (mkey && method == IB_MAD_METHOD_SET && attr_id == 0x0015 && data &&
	    ((const ib_port_info_t *)smp->data)->m_key == 0)
		((ib_port_info_t *)smp->data)->m_key = htobe64(mkey);
}
