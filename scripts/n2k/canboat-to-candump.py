#!/usr/bin/env python3
"""canboat CSV (one whole NMEA 2000 message a line) -> candump -L (one CAN frame a line).

Single-frame PGNs become one frame; a fast-packet PGN (Product Information, 126996, and the
others canboat lists) becomes its series: a first frame with the length and 6 bytes, then
frames of 7, the sequence counter in the top three bits. Used once to make the test fixtures
from canboat's samples (Apache-2.0); kept so the fixtures can be made again.

usage: canboat-to-candump.py IN.csv > OUT.log   [--iface vcan0]
"""
import sys
from datetime import datetime, timezone

FAST = {126996, 126720, 126208, 126464, 126998, 129029, 129038, 129039, 129040, 129041, 129540}


def frames(prio, pgn, src, dst, data, counter):
    pf = (pgn >> 8) & 0xFF
    can_id = (prio & 7) << 26 | (pgn & 0x3FFFF) << 8 | src
    if pf < 240:
        can_id = (can_id & ~0xFF00) | dst << 8
    if pgn not in FAST and (pgn < 130816 or pgn > 131071):
        yield can_id, data[:8]
        return
    seq = (counter & 7) << 5
    yield can_id, bytes([seq, len(data)]) + data[:6]
    rest, index = data[6:], 1
    while rest:
        yield can_id, bytes([seq | index]) + rest[:7]
        rest, index = rest[7:], index + 1


def main():
    iface = "vcan0"
    args = sys.argv[1:]
    if "--iface" in args:
        i = args.index("--iface")
        iface = args[i + 1]
        del args[i:i + 2]
    counters = {}
    last = 0.0
    for line in open(args[0]):
        parts = line.strip().split(",")
        if len(parts) < 6 or not parts[1].isdigit():
            continue
        stamp = parts[0].rstrip("Z")
        stamp = stamp[:10] + "T" + stamp[11:]
        if "." not in stamp:
            stamp += ".0"
        when = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=timezone.utc).timestamp()
        when = last = max(when, last)  # canboat's samples mix clocks: kept monotonic for canplayer
        prio, pgn, src, dst, length = (int(x) for x in parts[1:6])
        data = bytes(int(x, 16) for x in parts[6:6 + length])
        key = (pgn, src)
        counters[key] = counters.get(key, -1) + 1
        for can_id, payload in frames(prio, pgn, src, dst, data, counters[key]):
            print("(%017.6f) %s %08X#%s" % (when, iface, can_id, payload.hex().upper()))


main()
