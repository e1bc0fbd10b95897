/* Human output for the validation commands (none yet: the generic printer serves). */
#include "cli/fabricctl.h"

const struct cli_formatter fmt_validation[] = {
	{ NULL, NULL, NULL }
};
