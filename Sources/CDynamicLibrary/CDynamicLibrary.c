// headingd — CDynamicLibrary
// SPDX-License-Identifier: Apache-2.0
#include <dlfcn.h>
#include <stdio.h>
#include "CDynamicLibrary.h"

int cdynamic_library_load(
    const char *soname, const char *prefix, const char *const *names, void **functions, size_t count, char *failure,
    size_t failureSize
) {
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *reason = dlerror();
        snprintf(failure, failureSize, "%s", reason ? reason : soname);
        return 0;
    }
    for (size_t index = 0; index < count; index++) {
        char symbol[128];
        snprintf(symbol, sizeof symbol, "%s%s", prefix, names[index]);
        functions[index] = dlsym(handle, symbol);
        if (!functions[index]) {
            snprintf(failure, failureSize, "%s has no %s (too old a version?)", soname, symbol);
            dlclose(handle);
            return 0;
        }
    }
    return 1;
}
