// headingd — allocation counting for the test suite
// SPDX-License-Identifier: Apache-2.0
#ifndef C_ALLOCATION_COUNTER_H
#define C_ALLOCATION_COUNTER_H

/// Starts counting the calling thread's heap allocations (malloc, calloc, realloc and the aligned
/// allocators: every call), from zero.
void allocation_counting_start(void);

/// Stops counting on the calling thread and returns how many allocations it made since the start.
long allocation_counting_stop(void);

#endif
