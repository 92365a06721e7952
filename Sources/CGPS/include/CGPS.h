// headingd — CGPS: libgps (Debian's libgps28: gpsd 3.22, API 11), loaded when the first gpsd
// connection is made: a headingd reading no gpsd never maps it, nor the libraries it pulls in
// (libdbus, libsystemd, libgcrypt, liblzma, libzstd, liblz4, libcap, libgpg-error). Its header
// (libgps-dev) gives the types, the WATCH_* flags and the signatures.
// SPDX-License-Identifier: Apache-2.0
#ifndef HEADINGD_CGPS_H
#define HEADINGD_CGPS_H

#include <gps.h>

/// The libgps functions headingd calls, each typed as gps.h declares it.
#define CGPS_FUNCTIONS(X) \
    X(open) \
    X(stream) \
    X(errstr) \
    X(close)

/// libgps's functions, by their names without `gps_`.
struct cgps_library {
#define CGPS_FIELD(name) __typeof__(&gps_##name) _Nonnull name;
    CGPS_FUNCTIONS(CGPS_FIELD)
#undef CGPS_FIELD
};

/// Loads libgps.so.28 once (thread-safe). Returns its functions, or NULL with `*error` saying why
/// (dlopen's or dlsym's message).
const struct cgps_library *_Nullable cgps_load(const char *_Nullable *_Nonnull error);

#endif
