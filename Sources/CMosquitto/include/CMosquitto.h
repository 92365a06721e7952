// headingd — libmosquitto (Debian's libmosquitto1), the reference MQTT client library, loaded
// when the first MQTT client is made: headingd without an MQTT output never maps it, nor the
// libssl and libcrypto it pulls in (0.4 MB of relocated data resident in every process that maps
// libcrypto). Its header (libmosquitto-dev) gives the types, constants and signatures.
// SPDX-License-Identifier: Apache-2.0
#ifndef CMOSQUITTO_H
#define CMOSQUITTO_H

#include <mosquitto.h>

/// The libmosquitto functions headingd calls, each typed as the header declares it.
#define CMOSQUITTO_FUNCTIONS(X) \
    X(lib_init) \
    X(new) \
    X(destroy) \
    X(reinitialise) \
    X(user_data_set) \
    X(threaded_set) \
    X(int_option) \
    X(max_inflight_messages_set) \
    X(username_pw_set) \
    X(tls_set) \
    X(tls_opts_set) \
    X(tls_insecure_set) \
    X(will_set) \
    X(connect_callback_set) \
    X(disconnect_callback_set) \
    X(publish_callback_set) \
    X(strerror) \
    X(connack_string) \
    X(publish) \
    X(disconnect) \
    X(connect_async) \
    X(loop)

/// libmosquitto's functions, by their names without `mosquitto_`.
struct cmosquitto_library {
#define CMOSQUITTO_FIELD(name) __typeof__(&mosquitto_##name) _Nonnull name;
    CMOSQUITTO_FUNCTIONS(CMOSQUITTO_FIELD)
#undef CMOSQUITTO_FIELD
};

/// Loads libmosquitto.so.1 once (thread-safe) and calls `mosquitto_lib_init`.
/// Returns its functions, or NULL with `*error` saying why (dlopen's or dlsym's message).
const struct cmosquitto_library *_Nullable cmosquitto_load(const char *_Nullable *_Nonnull error);

#endif
