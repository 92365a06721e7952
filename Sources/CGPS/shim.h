// headingd — CGPS: libgps (Debian's libgps-dev, gpsd 3.22, API 11) for Swift.
// SPDX-License-Identifier: Apache-2.0
//
// Swift imports gps.h's functions and its WATCH_* flags as they are; no wrappers are needed.
#ifndef HEADINGD_CGPS_SHIM_H
#define HEADINGD_CGPS_SHIM_H
#include <gps.h>
#endif
