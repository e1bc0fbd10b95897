/* The k best of n: see topk.h. */
#include <stdlib.h>
#include <string.h>

#include "common/topk.h"

#define AT(b, i, size)	((char *)(b) + (i) * (size))

static void
swap_elems(void *a, void *b, size_t size)
{
	char tmp[256];

	while (size > 0) {
		size_t chunk = size < sizeof(tmp) ? size : sizeof(tmp);

		memcpy(tmp, a, chunk);
		memcpy(a, b, chunk);
		memcpy(b, tmp, chunk);
		a = (char *)a + chunk;
		b = (char *)b + chunk;
		size -= chunk;
	}
}

/* Sift element i of a heap of n down: the heap keeps the element cmp
 * ranks last (the worst of the kept) at its root. */
static void
sift_down(void *base, size_t n, size_t size, size_t i,
    int (*cmp)(const void *, const void *))
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, worst = i;

		if (l < n && cmp(AT(base, l, size), AT(base, worst, size)) > 0)
			worst = l;
		if (r < n && cmp(AT(base, r, size), AT(base, worst, size)) > 0)
			worst = r;
		if (worst == i)
			return;
		swap_elems(AT(base, i, size), AT(base, worst, size), size);
		i = worst;
	}
}

size_t
topk_select(void *base, size_t n, size_t size, size_t k,
    int (*cmp)(const void *, const void *))
{
	size_t i;

	if (k > n)
		k = n;
	if (k == 0)
		return 0;
	/* the first k as a heap, the worst of them at the root ... */
	for (i = k / 2; i-- > 0;)
		sift_down(base, k, size, i, cmp);
	/* ... and each later element that beats that worst replaces it */
	for (i = k; i < n; i++) {
		if (cmp(AT(base, i, size), base) < 0) {
			swap_elems(AT(base, i, size), base, size);
			sift_down(base, k, size, 0, cmp);
		}
	}
	qsort(base, k, size, cmp);
	return k;
}
