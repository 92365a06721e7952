// headingd — allocation counting for the test suite
// SPDX-License-Identifier: Apache-2.0
//
// Linked into the test executable, these definitions take the place of the C library's for the
// whole process (the executable's symbols come first), and forward to glibc's own entry points.
// Counting is per thread and off unless a test turns it on for its thread: other tests running
// in parallel neither see nor disturb it. Linux and glibc only; elsewhere counting reports -1.
#include "CAllocationCounter.h"

#include <errno.h>
#include <stddef.h>

#if defined(__linux__) && defined(__GLIBC__)

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static __thread int counting;
static __thread long allocations;

void allocation_counting_start(void) {
    allocations = 0;
    counting = 1;
}

long allocation_counting_stop(void) {
    counting = 0;
    return allocations;
}

void *malloc(size_t size) {
    if (counting) allocations += 1;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    if (counting) allocations += 1;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    if (counting) allocations += 1;
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    if (counting) allocations += 1;
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    if (counting) allocations += 1;
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    if (counting) allocations += 1;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}
#else
void allocation_counting_start(void) {}
long allocation_counting_stop(void) { return -1; }
#endif
