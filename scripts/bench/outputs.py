#!/usr/bin/env python3
# headingd — the measuring half of scripts/bench-outputs (see there).
# SPDX-License-Identifier: Apache-2.0
"""Three headingd processes side by side on one gpsd peer fed at a live rate, each serving NMEA 0183
over TCP: one with no client (the baseline), one with 1 client, one with 16. Prints each one's CPU
over the same window (from /proc/PID/stat) and, for 1 and 16 clients, the latency from the moment
a heading's sentence is written to headingd's gpsd socket to the moment its $IIHDT line is received
by a client (every client's copy counts), p50 / p99 / max, beside the same latency through
scripts/bench/relay.py (one Python thread that copies each line from the same peer to its client:
the floor that process wake-ups set on this machine) as the baseline.

The gpsd peer speaks just enough of gpsd's protocol (VERSION, then DEVICES and WATCH after the
client's ?WATCH) and then writes one raw $HEHDT sentence per period to every watcher, as gpsd
passes raw NMEA on with "nmea":true; it is in this script, not a real gpsd, so that the latency is
headingd's alone and not gpsd's pty and decoder too. One thread runs everything (selectors), so
each timestamp is taken right beside its send or receive.
"""
import argparse
import math
import os
import selectors
import socket
import statistics
import subprocess
import sys
import time
from functools import reduce

VERSION = b'{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}\n'
DEVICES = (b'{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyUSB0","driver":"NMEA0183",'
           b'"activated":"2026-11-23T10:00:00.000Z","flags":1,"native":0,"bps":4800,"parity":"N","stopbits":1,"cycle":1.00}]}\n'
           b'{"class":"WATCH","enable":true,"json":true,"nmea":true,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}\n')
TICKS = os.sysconf("SC_CLK_TCK")


UPGRADE = (b"GET /signalk/v1/stream?subscribe=self HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
           b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")


def pong(payload):
    """A client's pong frame (masked, as a client's frames must be) for a ping's payload."""
    mask = os.urandom(4)
    return bytes([0x8A, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def websocket_texts(pending, connection=None):
    """Takes the complete (unmasked, server-sent) frames off the front of `pending`; the text
    payloads. A ping is answered (headingd pings every 30 s and closes a client that never answers)."""
    texts = []
    while len(pending) >= 2:
        length = pending[1] & 0x7F
        offset = 2
        if length == 126:
            if len(pending) < 4:
                break
            length, offset = int.from_bytes(pending[2:4], "big"), 4
        elif length == 127:
            if len(pending) < 10:
                break
            length, offset = int.from_bytes(pending[2:10], "big"), 10
        if len(pending) < offset + length:
            break
        if pending[0] & 0x0F == 1:
            texts.append(bytes(pending[offset:offset + length]))
        elif pending[0] & 0x0F == 9 and connection is not None:
            connection.sendall(pong(bytes(pending[offset:offset + length])))
        del pending[:offset + length]
    return texts


def receive_into(connection, pending, what):
    """Appends what `connection` has to `pending`; the time it arrived (ns). Exits if it closed."""
    data = connection.recv(65536)
    received = time.monotonic_ns()
    if not data:
        sys.exit(f"bench-outputs: headingd closed {what}")
    pending += data
    return received


def sentence(heading):
    body = f"HEHDT,{heading:.1f},T"
    checksum = reduce(lambda a, c: a ^ ord(c), body, 0)
    return f"${body}*{checksum:02X}\r\n".encode()


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--headingd", required=True)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--rate", type=float, default=10, help="headings a second from the gpsd peer")
    parser.add_argument("--output", choices=["nmea", "signalk"], default="nmea",
                        help="the output measured: NMEA 0183 over TCP, or the Signal K WebSocket stream")
    parser.add_argument("extra", nargs="*", help="more headingd options, after --")
    arguments = parser.parse_args()

    selector = selectors.DefaultSelector()
    gpsd = socket.socket()
    gpsd.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    gpsd.bind(("127.0.0.1", 0))
    gpsd.listen(16)
    gpsd.setblocking(False)
    selector.register(gpsd, selectors.EVENT_READ, ("accept", None))
    watchers = []

    client_counts = [0, 1, 16]
    daemons = []
    for count in client_counts:
        port = free_port()
        output = ["--nmea-tcp", f"127.0.0.1:{port}"] if arguments.output == "nmea" else ["--signalk", "--signalk-listen", f"127.0.0.1:{port}"]
        command = [arguments.headingd, "--source", f"gpsd://127.0.0.1:{gpsd.getsockname()[1]}", *output, *arguments.extra]
        daemons.append((count, port, subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)))

    # The baseline for latency: a one-thread relay process between the same peer and one client.
    relay_port = free_port()
    relay = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "relay.py"),
                              str(gpsd.getsockname()[1]), str(relay_port)])

    sent_at = {}
    latencies = {count: [] for count in client_counts}
    latencies["relay"] = []

    def serve(until, on_tick=None):
        """Runs the loop until `until` (monotonic seconds), sending a sentence each period."""
        nonlocal next_send, index
        while time.monotonic() < until:
            timeout = max(0, next_send - time.monotonic())
            for key, _ in selector.select(timeout):
                kind, state = key.data
                if kind == "accept":
                    connection, _ = gpsd.accept()
                    connection.setblocking(False)
                    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    connection.send(VERSION)
                    selector.register(connection, selectors.EVENT_READ, ("gpsd-client", {"watching": False}))
                elif kind == "gpsd-client":
                    try:
                        data = key.fileobj.recv(4096)
                    except OSError:
                        data = b""
                    if not data:
                        selector.unregister(key.fileobj)
                        key.fileobj.close()
                        if key.fileobj in watchers:
                            watchers.remove(key.fileobj)
                    elif b"WATCH" in data and not state["watching"]:
                        state["watching"] = True
                        key.fileobj.send(DEVICES)
                        watchers.append(key.fileobj)
                elif kind == "ws-client":
                    count, pending = state
                    received = receive_into(key.fileobj, pending, "a Signal K client")
                    for text in websocket_texts(pending, key.fileobj):
                        marker = text.find(b'"navigation.headingTrue","value":')
                        if marker < 0 or on_tick is None:
                            continue
                        number = text[marker + 33:].split(b"}", 1)[0].split(b",", 1)[0]
                        try:
                            heading = f"{(float(number) * 180 / math.pi) % 360:.1f}"
                        except ValueError:
                            continue
                        if heading in sent_at:
                            latencies[count].append((received - sent_at[heading]) / 1000)
                elif kind == "nmea-client":
                    count, pending = state
                    received = receive_into(key.fileobj, pending, "an NMEA client")
                    while b"\n" in pending:
                        line, _, rest = pending.partition(b"\n")
                        pending[:] = rest
                        if line.startswith(b"$IIHDT,"):
                            heading = line.split(b",")[1].decode()
                            if heading in sent_at and on_tick is not None:
                                latencies[count].append((received - sent_at[heading]) / 1000)
            if time.monotonic() >= next_send:
                heading = (index * 0.1) % 360  # 3600 distinct values: a 6-minute window at most
                index += 1
                text = f"{heading:.1f}"
                sent_at[text] = time.monotonic_ns()
                for watcher in watchers:
                    try:
                        watcher.send(sentence(heading))
                    except OSError:
                        pass
                next_send += 1 / arguments.rate

    next_send = time.monotonic()
    index = 0
    # Until all three are watching (bounded).
    serve(time.monotonic() + 3)
    if len(watchers) < len(daemons) + 1:
        for _, _, process in daemons:
            process.kill()
        relay.kill()
        sys.exit(f"bench-outputs: only {len(watchers)} of {len(daemons) + 1} processes watch the gpsd peer")
    clients = []
    for count, port, _ in daemons + [("relay", relay_port, relay)]:
        if count == "relay":
            count = 1
            key = "relay"
        else:
            key = count
        for _ in range(count):
            client = socket.create_connection(("127.0.0.1", port))
            kind = "nmea-client"
            if arguments.output == "signalk" and key != "relay":
                client.sendall(UPGRADE)
                response = b""
                while b"\r\n\r\n" not in response:
                    response += client.recv(4096)
                if not response.startswith(b"HTTP/1.1 101"):
                    sys.exit(f"bench-outputs: no WebSocket upgrade: {response[:100]}")
                kind = "ws-client"
                leftover = bytearray(response.split(b"\r\n\r\n", 1)[1])
            else:
                leftover = bytearray()
            client.setblocking(False)
            selector.register(client, selectors.EVENT_READ, (kind, (key, leftover)))
            clients.append(client)
    serve(time.monotonic() + 2)  # connected and settled

    start = {process.pid: cpu_seconds(process.pid) for _, _, process in daemons}
    started = time.monotonic()
    serve(started + arguments.seconds, on_tick=True)
    elapsed = time.monotonic() - started
    used = {process.pid: cpu_seconds(process.pid) - start[process.pid] for _, _, process in daemons}

    for _, _, process in daemons + [(0, 0, relay)]:
        process.terminate()
    for _, _, process in daemons + [(0, 0, relay)]:
        process.wait(timeout=10)

    what = "NMEA TCP output" if arguments.output == "nmea" else "Signal K WebSocket stream (?subscribe=self)"
    print(f"window: {elapsed:.1f} s, {arguments.rate:g} headings/s from one gpsd peer to three headingd side by side, "
          f"{what} {' '.join(arguments.extra) or 'at its defaults'}")
    baseline = None
    for count, _, process in daemons:
        percent = 100 * used[process.pid] / elapsed
        if baseline is None:
            baseline = percent
        extra = "" if count == 0 else f"  ({percent - baseline:+.3f} points, {percent / baseline:.2f}x the baseline)" if baseline else ""
        print(f"  {count:2d} clients: CPU {percent:.3f} % of a core{extra}")
    relay_values = latencies["relay"]
    base50 = statistics.median(relay_values) if relay_values else None
    base99 = percentile(relay_values, 0.99) if relay_values else None
    for key in ["relay"] + client_counts[1:]:
        values = latencies[key]
        name = " relay, 1 client" if key == "relay" else f"{key:2d} clients"
        if not values:
            print(f"  {name}: no sentence received")
            continue
        expected = (1 if key == "relay" else key) * int(elapsed * arguments.rate)
        p50, p99 = statistics.median(values), percentile(values, 0.99)
        ratio = "" if key == "relay" or not base50 else f"  ({p50 / base50:.1f}x / {p99 / base99:.1f}x the relay)"
        print(f"  {name}: heading in -> {'$IIHDT' if key == 'relay' or arguments.output == 'nmea' else 'delta'} received, {len(values)} lines (≈{expected} expected): "
              f"p50 {p50:.0f} µs, p99 {p99:.0f} µs, max {max(values):.0f} µs{ratio}")


if __name__ == "__main__":
    main()
