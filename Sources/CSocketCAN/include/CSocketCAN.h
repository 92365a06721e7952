// headingd — CSocketCAN: Linux's SocketCAN definitions for Swift.
// SPDX-License-Identifier: Apache-2.0
#ifndef CSOCKETCAN_H
#define CSOCKETCAN_H
#ifdef __linux__
// Only the kernel's own headers here: the C library's (sys/socket.h, net/if.h) belong to Glibc's
// module, and including them here would take their names from it.
#include <linux/can.h>
#include <linux/can/raw.h>
#include <linux/can/error.h>

/// SIOCGIFINDEX through a C call (Swift cannot call the variadic ioctl); -1 with errno.
int csocketcan_interface_index(int descriptor, const char *name);
/// Whether the interface is up (SIOCGIFFLAGS, IFF_UP): 1 up, 0 down, -1 with errno.
int csocketcan_interface_is_up(int descriptor, const char *name);
/// The level of CAN_RAW's socket options (SOL_CAN_RAW).
int csocketcan_raw_level(void);
#endif
#endif
