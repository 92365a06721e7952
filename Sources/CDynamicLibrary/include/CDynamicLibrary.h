// headingd — CDynamicLibrary: a C library loaded when first used (dlopen), not linked, for the
// wrappers of libraries only some headingds need (CGPS, CMosquitto).
// SPDX-License-Identifier: Apache-2.0
#ifndef HEADINGD_CDYNAMICLIBRARY_H
#define HEADINGD_CDYNAMICLIBRARY_H

#include <stddef.h>

/// Loads `soname` (`dlopen`, `RTLD_NOW | RTLD_LOCAL`) and resolves `count` functions, each
/// `prefix` followed by `names[i]`, into `functions[i]`.
/// Returns 1; or 0 with `failure` saying why (dlopen's message, or the function that is missing),
/// the library closed again.
int cdynamic_library_load(
    const char *_Nonnull soname, const char *_Nonnull prefix, const char *_Nonnull const *_Nonnull names,
    void *_Nullable *_Nonnull functions, size_t count, char *_Nonnull failure, size_t failureSize
);

#endif
