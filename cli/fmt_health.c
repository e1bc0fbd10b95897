/* Human output for the health commands (none yet: the generic printer serves). */
#include "cli/fabricctl.h"

const struct cli_formatter fmt_health[] = {
	{ NULL, NULL, NULL }
};
