#!/usr/bin/python3
# headingd — test fixture. SPDX-License-Identifier: Apache-2.0
"""A sysfs attribute whose read stalls, as an I2C read does when the bus is held: a FUSE file
system (Debian's python3-fusepy) with one regular file, `raw`, whose read answers VALUE at once
while the file HOLD is absent, and waits, in the kernel, for as long as HOLD exists.

Usage: stalling-attribute.py MOUNTPOINT HOLD VALUE  (as root; SIGKILL ends it, then umount)."""
import errno
import os
import stat
import sys
import time

from fusepy import FUSE, FuseOSError, Operations


class StallingAttribute(Operations):
    def __init__(self, hold, value):
        self.hold = hold
        self.value = (value + "\n").encode()

    def getattr(self, path, fh=None):
        if path == "/":
            return dict(st_mode=stat.S_IFDIR | 0o755, st_nlink=2)
        if path == "/raw":
            return dict(st_mode=stat.S_IFREG | 0o444, st_nlink=1, st_size=4096)
        raise FuseOSError(errno.ENOENT)

    def readdir(self, path, fh):
        return [".", "..", "raw"]

    def open(self, path, flags):
        return 0

    def read(self, path, size, offset, fh):
        while os.path.exists(self.hold):
            time.sleep(0.02)
        return self.value[offset:offset + size]


if __name__ == "__main__":
    FUSE(StallingAttribute(sys.argv[2], sys.argv[3]), sys.argv[1], foreground=True, direct_io=True, nothreads=False)
