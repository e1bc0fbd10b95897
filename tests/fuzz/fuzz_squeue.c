/*
 * libFuzzer target: what squeue printed (the job partitions' reconcile
 * asks it which jobs still run, partitions/jobs_reconcile.c): job ids one
 * a line, or a refusal.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "partitions/jobs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), **ids = NULL;
	size_t n = 0;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (pt_squeue_parse(text, &ids, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			free(ids[i]);
		free(ids);
	}
	free(text);
	return 0;
}
