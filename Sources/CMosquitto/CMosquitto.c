// headingd — CMosquitto: libmosquitto loaded on first use (dlopen), not linked.
// SPDX-License-Identifier: Apache-2.0
#include <pthread.h>
#include "CDynamicLibrary.h"
#include "CMosquitto.h"

#define CMOSQUITTO_NAME(name) #name,
static const char *const names[] = {CMOSQUITTO_FUNCTIONS(CMOSQUITTO_NAME)};
#undef CMOSQUITTO_NAME
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct cmosquitto_library library;
static int loaded;
static char failure[512];

static void load(void) {
    // The soname of Debian's libmosquitto1 (and of every libmosquitto since 1.0).
    void *functions[sizeof names / sizeof *names];
    if (!cdynamic_library_load("libmosquitto.so.1", "mosquitto_", names, functions, sizeof names / sizeof *names, failure, sizeof failure)) {
        return;
    }
    size_t index = 0;
#define CMOSQUITTO_ASSIGN(name) library.name = (__typeof__(library.name))functions[index++];
    CMOSQUITTO_FUNCTIONS(CMOSQUITTO_ASSIGN)
#undef CMOSQUITTO_ASSIGN
    library.lib_init();
    loaded = 1;
}

const struct cmosquitto_library *cmosquitto_load(const char **error) {
    pthread_once(&once, load);
    if (loaded) return &library;
    *error = failure;
    return NULL;
}
