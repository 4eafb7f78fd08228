/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel types and bit helpers that arch/x86/events/assign.c and
 * the greedy scheduler of arch/x86/events/core.c use, for user space.
 * find_next_bit() is the kernel's inline path for constant sizes of at
 * most BITS_PER_LONG, the one the greedy compiles to; the rest use the
 * instructions x86 kernels use (tzcnt, bsr, popcnt).
 */
#ifndef _SHIM_LINUX_BITOPS_H
#define _SHIM_LINUX_BITOPS_H

#include <stdbool.h>
#include <string.h>

typedef signed char s8;
typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long long u64;

#define BITS_PER_LONG		64
#define BITS_TO_LONGS(nr)	(((nr) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define BIT(nr)			(1UL << (nr))
#define BIT_ULL(nr)		(1ULL << (nr))
#define GENMASK(h, l)		((~0UL << (l)) & (~0UL >> (BITS_PER_LONG - 1 - (h))))
#define GENMASK_ULL(h, l)	((~0ULL << (l)) & (~0ULL >> (63 - (h))))

#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define noinline_for_stack	__attribute_noinline__

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define min(a, b)		({ typeof(a) _a = (a); typeof(b) _b = (b); _a < _b ? _a : _b; })
#define max(a, b)		({ typeof(a) _a = (a); typeof(b) _b = (b); _a > _b ? _a : _b; })

static inline unsigned long __ffs(unsigned long word)
{
	return __builtin_ctzl(word);
}

static inline unsigned int __ffs64(u64 word)
{
	return __builtin_ctzll(word);
}

static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static inline unsigned int hweight32(u32 w)
{
	return __builtin_popcount(w);
}

static inline unsigned int hweight64(u64 w)
{
	return __builtin_popcountll(w);
}

static inline unsigned long find_next_bit(const unsigned long *addr,
					  unsigned long size,
					  unsigned long offset)
{
	unsigned long val;

	if (unlikely(offset >= size))
		return size;

	val = *addr & GENMASK(size - 1, offset);
	return val ? __ffs(val) : size;
}

/* The kernel's, written to evaluate each argument once. */
#define for_each_set_bit_from(bit, addr, size)				\
	for (int *__bit = &(bit), __size = (size);			\
	     (*__bit = find_next_bit((addr), __size, *__bit)) < __size;	\
	     (*__bit)++)

#endif
