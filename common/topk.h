/*
 * The k best of n elements, in order, without sorting all n: what a reply
 * that shows "the 100 most severe of 7,776" needs.  A full qsort of the n
 * costs n log n comparisons (string compares, often) on the event loop;
 * this keeps a heap of the k best seen so far, n log k, and sorts only them.
 */
#ifndef FABRICD_TOPK_H
#define FABRICD_TOPK_H

#include <stddef.h>

/* Reorder base[0..n) so that base[0..min(n, k)) holds the min(n, k)
 * elements that cmp ranks first, sorted by cmp (a qsort comparator: < 0
 * when its first argument comes first).  The order of the rest is
 * unspecified.  Returns min(n, k). */
size_t topk_select(void *base, size_t n, size_t size, size_t k,
    int (*cmp)(const void *, const void *));

#endif
