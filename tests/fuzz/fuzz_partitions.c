/*
 * libFuzzer target: partition files, as `partition import` takes them
 * from a client: the first byte picks the reader (even: fabricd's YAML,
 * odd: OpenSM's partitions.conf), the rest is the file.  A file must load
 * into a model or fail with messages; nothing else.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "partitions/files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pt_config *c = NULL;
	char *text, *err = NULL;
	int rc;

	if (size < 1)
		return 0;
	log_init("fuzz", LOG_LVL_ERROR);
	text = malloc(size);		/* NUL-terminated at its length, as read */
	if (text == NULL)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	if (data[0] & 1)
		rc = pt_osm_parse_text("fuzz.conf", text, &c, &err);
	else
		rc = pt_yaml_parse_text("fuzz.yaml", text, size - 1, &c, &err);
	if (rc == 0) {
		char *back = pt_yaml_export(c);	/* what `partition export` writes */

		free(back);
		pt_config_free(c);
	}
	free(err);
	free(text);
	return 0;
}
