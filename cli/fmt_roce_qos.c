/* Human output for the roce_qos commands (none yet: the generic printer serves). */
#include "cli/fabricctl.h"

const struct cli_formatter fmt_roce_qos[] = {
	{ NULL, NULL, NULL }
};
