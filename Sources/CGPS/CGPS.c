// headingd — CGPS: libgps loaded on first use (dlopen), not linked.
// SPDX-License-Identifier: Apache-2.0
#include <pthread.h>
#include "CDynamicLibrary.h"
#include "CGPS.h"

#define CGPS_NAME(name) #name,
static const char *const names[] = {CGPS_FUNCTIONS(CGPS_NAME)};
#undef CGPS_NAME
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct cgps_library library;
static int loaded;
static char failure[512];

static void load(void) {
    // The soname of the libgps whose API gps.h (API 11, gpsd 3.22) describes.
    void *functions[sizeof names / sizeof *names];
    if (!cdynamic_library_load("libgps.so.28", "gps_", names, functions, sizeof names / sizeof *names, failure, sizeof failure)) return;
    size_t index = 0;
#define CGPS_ASSIGN(name) library.name = (__typeof__(library.name))functions[index++];
    CGPS_FUNCTIONS(CGPS_ASSIGN)
#undef CGPS_ASSIGN
    loaded = 1;
}

const struct cgps_library *cgps_load(const char **error) {
    pthread_once(&once, load);
    if (loaded) return &library;
    *error = failure;
    return NULL;
}
