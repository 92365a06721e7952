#!/usr/bin/env python3
# headingd — what the NMEA 2000 output costs (issue 39), side by side: two headingd at the same
# moment on the built-in simulation at 10 Hz, one with --nmea2000 to a Yacht Devices gateway in
# RAW mode played here (each frame read and echoed as a `T` line, as the gateway does), one
# without. CPU of all threads over the same window after start-up (schedstat), rounds interleaved;
# the latency from a heading at the fan-out to its 127250 written, from headingd's own histogram
# (headingd_output_nmea2000_write_latency_seconds); 127250 a second as the gateway read them.
# SPDX-License-Identifier: Apache-2.0
#
# Usage: python3 scripts/bench/nmea2000.py --headingd PATH [--seconds S] [--rounds N]
import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from feed import cpu_seconds  # noqa: E402  scripts/bench/feed.py, beside this file

SETTLE_SECONDS = 5


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def gateway(server, counts, stop):
    """Accepts headingd, echoes each line as a `T` line, counts 127250 (09F112xx) lines."""
    server.settimeout(1)
    while not stop.is_set():
        try:
            connection, _ = server.accept()
        except socket.timeout:
            continue
        connection.settimeout(0.5)
        pending = b""
        while not stop.is_set():
            try:
                data = connection.recv(65536)
            except socket.timeout:
                continue
            if not data:
                break
            pending += data
            *lines, pending = pending.split(b"\n")
            echoes = b"".join(b"00:00:00.000 T " + line.strip() + b"\r\n" for line in lines if line.strip())
            counts["headings"] += sum(1 for line in lines if line[2:6] == b"F112")
            if echoes:
                connection.sendall(echoes)
        connection.close()


def scrape(port):
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    buckets = []
    for line in text.splitlines():
        if line.startswith("headingd_output_nmea2000_write_latency_seconds_bucket"):
            bound = line.split('le="')[1].split('"')[0]
            buckets.append((float("inf") if bound == "+Inf" else float(bound), float(line.rsplit(" ", 1)[1])))
    return buckets


def quantile_bound(buckets, fraction):
    total = buckets[-1][1] if buckets else 0
    for bound, count in buckets:
        if total and count >= fraction * total:
            return bound, total
    return None, total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--headingd", required=True)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    arguments = parser.parse_args()
    added, ratios, rates = [], [], []
    buckets = []
    for round_number in range(arguments.rounds):
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        counts = {"headings": 0}
        stop = threading.Event()
        thread = threading.Thread(target=gateway, args=(server, counts, stop), daemon=True)
        thread.start()
        metrics_port = free_port()
        with tempfile.TemporaryDirectory() as state:
            common = [arguments.headingd, "--format", "json", "--rate", "10", "--dropout-interval", "0"]
            environment = dict(os.environ, STATE_DIRECTORY=state)
            # Both serve metrics (the node's latency is read there): they differ by the output alone.
            plain = subprocess.Popen(common + ["--metrics", "--http-listen", f"127.0.0.1:{free_port()}"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
            node = subprocess.Popen(
                common + ["--nmea2000", f"tcp://127.0.0.1:{server.getsockname()[1]}?format=ydraw", "--metrics", "--http-listen",
                          f"127.0.0.1:{metrics_port}"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
            time.sleep(SETTLE_SECONDS)
            start = (cpu_seconds(plain.pid), cpu_seconds(node.pid), counts["headings"], time.monotonic())
            time.sleep(arguments.seconds)
            end = (cpu_seconds(plain.pid), cpu_seconds(node.pid), counts["headings"], time.monotonic())
            buckets = scrape(metrics_port)
            for process in (plain, node):
                process.terminate()
                process.wait(timeout=10)
        stop.set()
        thread.join(timeout=3)
        server.close()
        window = end[3] - start[3]
        plain_cpu, node_cpu = end[0] - start[0], end[1] - start[1]
        added.append((node_cpu - plain_cpu) / window * 100)
        ratios.append(node_cpu / plain_cpu if plain_cpu else float("nan"))
        rates.append((end[2] - start[2]) / window)
        print(f"round {round_number + 1}: without {plain_cpu / window * 100:.2f} % of a core, with {node_cpu / window * 100:.2f} %, "
              f"127250 {rates[-1]:.2f}/s", file=sys.stderr)
    p50, total = quantile_bound(buckets, 0.5)
    p99, _ = quantile_bound(buckets, 0.99)
    print(f"NMEA 2000 output, {arguments.rounds} rounds of {arguments.seconds:.0f} s at 10 Hz (medians):")
    print(f"  CPU added by the output: {statistics.median(added):.2f} % of a core (with/without {statistics.median(ratios):.3f}x)")
    print(f"  127250 a second at the gateway: {statistics.median(rates):.2f}")
    print(f"  heading at the fan-out -> 127250 written (last round, {total:.0f} headings): p50 <= {p50 * 1e6:.0f} us, p99 <= {p99 * 1e6:.0f} us")


if __name__ == "__main__":
    main()
