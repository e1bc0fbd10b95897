/*
 * libFuzzer target: what a validation job's launcher printed: nccl-tests'
 * text and -J JSON reports, and perftest's output (validation/parse.h);
 * the first byte picks the parser.  Whatever it returns, what it filled
 * in is freed; nothing else.
 */
#include <stdint.h>

#include "validation/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nccl_parsed n;
	struct perftest_parsed p;
	const char *buf = (const char *)data + 1;

	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0:
		(void)nccl_parse_text(buf, size - 1, &n);
		nccl_parsed_free(&n);
		break;
	case 1:
		(void)nccl_parse_json(buf, size - 1, &n);	/* a half-read report too */
		nccl_parsed_free(&n);
		break;
	default:
		(void)perftest_parse(buf, size - 1, &p);
		perftest_parsed_free(&p);
		break;
	}
	return 0;
}
