/* Shared by the validation unit tests: read a fixture from tests/fixtures/nccl. */
#ifndef TEST_VALIDATION_FIXTURE_H
#define TEST_VALIDATION_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fixture's bytes (NUL-terminated for convenience), or NULL. */
static char *
fixture_load(const char *name, size_t *len)
{
	const char *src = getenv("FABRICD_SRC");
	char path[1024];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/tests/fixtures/nccl/%s", src ? src : ".", name);
	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

#endif
