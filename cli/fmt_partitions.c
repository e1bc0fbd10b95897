/* Human output for the partitions commands (none yet: the generic printer serves). */
#include "cli/fabricctl.h"

const struct cli_formatter fmt_partitions[] = {
	{ NULL, NULL, NULL }
};
