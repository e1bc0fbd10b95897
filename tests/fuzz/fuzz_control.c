/*
 * libFuzzer target: a control-socket request line, checked as the
 * dispatcher checks it before any handler runs (daemon/control.c): JSON
 * with duplicate keys refused, an object with "v", "id", "cmd" and
 * "args", the command found in commands.def, its arguments against the
 * command's spec.  Any local user may send one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "common/spec.h"
#include "daemon/commands.h"
#include "daemon/control.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct spec *specs;

static void
specs_once(void)
{
	if (specs)
		return;
	specs = calloc(fabricd_ncommands, sizeof(*specs));
	for (size_t i = 0; specs && i < fabricd_ncommands; i++)
		if (spec_parse(fabricd_commands[i].spec_text, &specs[i]) != 0)
			abort();	/* commands.def is ours: a bad spec is a bug */
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t jerr;
	json_t *msg, *args;
	const char *name;
	char why[256];

	specs_once();
	msg = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
	if (msg == NULL)
		return 0;
	name = json_string_value(json_object_get(msg, "cmd"));
	args = json_object_get(msg, "args");
	if (json_is_object(msg) && name && (args == NULL || json_is_object(args)))
		for (size_t i = 0; i < fabricd_ncommands; i++)
			if (strcmp(fabricd_commands[i].name, name) == 0) {
				(void)spec_check(&specs[i], args, why, sizeof(why));
				break;
			}
	json_decref(msg);
	return 0;
}
