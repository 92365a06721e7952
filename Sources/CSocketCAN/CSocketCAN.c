// headingd — CSocketCAN
// SPDX-License-Identifier: Apache-2.0
#ifdef __linux__
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include "CSocketCAN.h"

int csocketcan_interface_index(int descriptor, const char *name) {
    struct ifreq request;
    memset(&request, 0, sizeof request);
    strncpy(request.ifr_name, name, IFNAMSIZ - 1);
    if (ioctl(descriptor, SIOCGIFINDEX, &request) < 0) return -1;
    return request.ifr_ifindex;
}

int csocketcan_interface_is_up(int descriptor, const char *name) {
    struct ifreq request;
    memset(&request, 0, sizeof request);
    strncpy(request.ifr_name, name, IFNAMSIZ - 1);
    if (ioctl(descriptor, SIOCGIFFLAGS, &request) < 0) return -1;
    return (request.ifr_flags & IFF_UP) != 0;
}

int csocketcan_raw_level(void) { return SOL_CAN_RAW; }
#endif
