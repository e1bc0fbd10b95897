/* Human output for the sm commands (none yet: the generic printer serves). */
#include "cli/fabricctl.h"

const struct cli_formatter fmt_sm[] = {
	{ NULL, NULL, NULL }
};
