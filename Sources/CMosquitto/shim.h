// headingd — libmosquitto (Debian's libmosquitto-dev), the reference MQTT client library.
// SPDX-License-Identifier: Apache-2.0
#include <mosquitto.h>
