/*
 * libFuzzer target: fabricd.yaml, every module's section (the file an
 * operator edits, and what `roce lint --file` and `fabricd -n` read from a
 * client): config_load_text with the daemon's modules.  A config must load
 * or fail with messages; nothing else (make fuzz, tests/fuzz/run.sh).
 */
#include <stddef.h>
#include <stdint.h>

#include "daemon/config.h"
#include "daemon/fabricd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fabricd_config *cfg = NULL;
	char **errs = NULL;
	size_t n = 0;

	log_init("fuzz", LOG_LVL_ERROR);
	if (config_load_text("fuzz.yaml", (const char *)data, size, fabricd_modules, &cfg, &errs,
	    &n) == 0)
		config_free(cfg);
	else
		cfg_errors_free(errs, n);
	return 0;
}
