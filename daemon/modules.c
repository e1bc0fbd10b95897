/* The modules, in start order (stop runs in reverse). */
#include "daemon/fabricd.h"

const struct fabricd_module *const fabricd_modules[MOD_COUNT] = {
	[MOD_HA] = &ha_module,
	[MOD_SM] = &sm_module,
	[MOD_PARTITIONS] = &partitions_module,
	[MOD_ROCE_QOS] = &roce_qos_module,
	[MOD_HEALTH] = &health_module,
	[MOD_VALIDATION] = &validation_module,
};
