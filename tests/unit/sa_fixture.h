/*
 * What the SA unit tests share (header-only, like fabric_route_fixture.h):
 * the hand-built fabric of fabric_route_fixture.h with the PortInfo the SM
 * would hold on every port, and a query that collects every record of an
 * attribute without cutting.
 */
#ifndef SA_FIXTURE_H
#define SA_FIXTURE_H

#include "sm/sa/sa.h"
#include "tests/unit/fabric_route_fixture.h"

/* The PortInfo the SM would hold: the fixture's widths and speeds, MTU
 * 2048, the port's LID and state. */
static inline void
sa_fixture_portinfo(struct fabric_port *p)
{
	ib_port_info_t *pi = (ib_port_info_t *)p->pi;

	memset(pi, 0, sizeof(*pi));
	pi->base_lid = htobe16(p->lid);
	pi->link_width_active = p->width_active;
	pi->link_speed = (uint8_t)(p->speed_active << 4);
	pi->mtu_cap = IB_MTU_LEN_2048;
	pi->state_info1 = p->state;
}

/* The QoS capabilities the SL2VL/VLArb record tests give a port: VL0-7,
 * 8 low and 8 high arbitration entries, an SL-to-VL table. */
static inline void
sa_fixture_qos_caps(struct fabric_port *p)
{
	ib_port_info_t *pi = (ib_port_info_t *)p->pi;

	memset(pi, 0, sizeof(*pi));
	pi->vl_cap = 4 << 4;
	ib_port_info_set_op_vls(pi, 4);
	pi->vl_arb_low_cap = 8;
	pi->vl_arb_high_cap = 8;
	pi->capability_mask = IB_PORT_CAP_HAS_SL_MAP;
}

/* rfix_build(), every port with its PortInfo. */
static inline void
sa_fixture_fabric(struct rfix *x)
{
	struct fabric_node *n;
	size_t i;

	rfix_build(x);
	FABRIC_FOREACH_NODE(x->f, i, n)
		for (unsigned j = 0; j <= n->nports; j++)
			sa_fixture_portinfo(&n->ports[j]);
}

/* Every record of attr matching tmpl and mask into buf (room for max),
 * none cut; how many. */
static inline size_t
sa_fixture_query(const struct sa_ctx *ctx, const uint8_t *tmpl, uint8_t *buf, size_t max,
    struct sa_sink *sink, uint16_t attr, uint64_t mask_net)
{
	struct sa_query q = { .tmpl = tmpl, .mask = mask_net };

	memset(sink, 0, sizeof(*sink));
	sink->buf = buf;
	sink->rec_size = sa_record_size(attr);
	sink->max = max;
	assert_int_equal(sa_build_records(ctx, attr, &q, sink), 0);
	assert_int_equal(sink->n, sink->total);
	return sink->n;
}

#endif
