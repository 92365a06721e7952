#!/usr/bin/env python3
# headingd — the live cost of headingd behind a real gpsd, against that gpsd, for one or more
# headingd builds side by side; and the resident memory of each build at 10 Hz.
# SPDX-License-Identifier: Apache-2.0
"""Usage: live.py --headingd NAME=PATH [--headingd NAME=PATH ...] [--floor PATH] [--seconds S]
                  [--rates R,R] [--rounds N]

For each rate, each round: one paced feed server per build on loopback sends a GNSS compass's
lines ($GPHDT at RATE a second, $GPRMC once a second) for S seconds; each feed is read by its own
gpsd (gpsd -N -n tcp://…), and each gpsd by one headingd build (--source gpsd://…, JSON lines on
a pipe). With --floor, the post-and-decode floor (Benchmarks' LiveFloor: HeadingKitGPSD's source
decoding gpsd's reports, each heading posted to a NotificationCenter whose one observer writes it
as a line) runs beside them the same way, as one more build. All run at the same moment, started
together, so the machine's load falls on all of them alike. CPU is utime + stime of all threads
from /proc/PID/task/*/schedstat; wake-ups are voluntary context switches of all threads (with the
thread names that woke most); headings are the lines written in the window; latency is from the
feed's sending a heading's line to the build's writing that heading (through gpsd, alike for all).

Printed per build and rate: its CPU over the floor's and over its gpsd's (medians over the rounds),
its latency's median and 99th percentile and theirs over the floor's, wake-ups per heading, which
threads woke, and its VmRSS at the end of the window.
"""
import argparse
import collections
import glob
import json
import socket
import statistics
import subprocess
import sys
import threading
import time

from feed import cpu_seconds, sentence  # scripts/bench/feed.py, beside this file


def compass_lines(rate, seconds):
    """HDT at `rate` a second, turning slowly, and an RMC once a second: (time offset, bytes)."""
    lines = []
    count = int(rate * seconds)
    for index in range(count):
        offset = index / rate
        heading = (index * 0.7) % 360
        lines.append((offset, sentence(f"GPHDT,{heading:.1f},T")))
        if index % int(rate) == 0:
            second = int(offset)
            clock = f"{12 + second // 3600 % 12:02d}{second // 60 % 60:02d}{second % 60:02d}.00"
            lines.append((offset, sentence(f"GPRMC,{clock},A,4807.038,N,01131.000,E,5.5,{heading:.1f},230394,003.1,W")))
    return lines


# Seconds from the start before the window opens (see run()).
SETTLE_SECONDS = 5


def cpu_ns(pid):
    """All threads' time on a CPU, from schedstat: feed.py's reader, in nanoseconds."""
    return round(cpu_seconds(pid) * 1e9)


def thread_wakeups(pid):
    """{thread name: voluntary context switches}, summed over threads of one name."""
    result = collections.Counter()
    for task in glob.glob(f"/proc/{pid}/task/*"):
        try:
            name = open(f"{task}/comm").read().strip()
            # Threads named after their port (gpsd:2947) are one kind of thread.
            if ":" in name and name.rsplit(":", 1)[1].isdigit():
                name = name.rsplit(":", 1)[0] + " reader"
            for line in open(f"{task}/status"):
                if line.startswith("voluntary_ctxt_switches"):
                    result[name] += int(line.split()[1])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return result


def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def listen():
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    return server, server.getsockname()[1]


def free_port():
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


def serve(server, lines, start, stop, sent):
    """Sends `lines` at their offsets once `start` is set, recording in `sent` when each heading's
    line (keyed by its degrees to 0.1) left first."""
    try:
        connection, _ = server.accept()
    except OSError:
        return
    start.wait()
    began = time.monotonic()
    try:
        for offset, data in lines:
            if stop.is_set():
                break
            delay = began + offset - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            connection.sendall(data)
            key = heading_key(data)
            if key is not None:
                sent.setdefault(key, time.monotonic())
    except OSError:
        pass
    stop.wait()
    connection.close()


def heading_key(data):
    """A feed line's heading in tenths of a degree ($GPHDT's field 1), else None."""
    if not data.startswith(b"$GPHDT,"):
        return None
    return round(float(data.split(b",")[1]) * 10)


class Lines:
    """Reads a process's stdout on a thread of its own: how many lines, and when each heading came
    (keyed as the feed keys it). A headingd line is JSON with trueHeading; the floor's is degrees."""

    def __init__(self, stream):
        self.count = 0
        self.arrivals = []  # (monotonic time, key)
        self.enough = threading.Event()
        self.wanted = 1
        self.thread = threading.Thread(target=self.read, args=(stream,), daemon=True)
        self.thread.start()

    def read(self, stream):
        for line in stream:
            now = time.monotonic()
            self.count += 1
            try:
                if line.startswith(b"{"):
                    value = json.loads(line).get("trueHeading")
                else:
                    value = float(line)
                if value is not None:
                    self.arrivals.append((now, round(value * 10)))
            except ValueError:
                pass
            if self.count >= self.wanted:
                self.enough.set()


def percentile(values, fraction):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def run(builds, rate, seconds):
    """One round: every build behind its own gpsd, at once. {name: measurements}."""
    lines = compass_lines(rate, seconds + SETTLE_SECONDS + 5)  # enough for the start-up, the settling and the measured seconds
    start, stop = threading.Event(), threading.Event()
    processes, feeders, readers, sent = {}, [], {}, {}
    try:
        for name, path in builds:
            server, port = listen()
            sent[name] = {}
            feeder = threading.Thread(target=serve, args=(server, lines, start, stop, sent[name]), daemon=True)
            feeder.start()
            feeders.append((feeder, server))
            gpsd_port = free_port()
            gpsd = subprocess.Popen(["/usr/sbin/gpsd", "-N", "-n", "-S", str(gpsd_port), f"tcp://127.0.0.1:{port}"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            processes[name] = {"gpsd": gpsd}
            processes[name]["port"] = gpsd_port
        time.sleep(0.5)
        for name, path in builds:
            url = f"gpsd://127.0.0.1:{processes[name]['port']}"
            command = [path, url] if name == "floor" else [path, "--source", url, "--format", "json"]
            processes[name]["headingd"] = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            readers[name] = Lines(processes[name]["headingd"].stdout)
            readers[name].wanted = int(rate)
        start.set()
        started = time.monotonic()
        # Started up: the first headings have arrived everywhere, and the start-up page release
        # (2 s after the start: smaps read, pages given back and faulted in again) is done — a
        # one-off that a window opened at the first headings counts, and 30 s of 10 Hz do not
        # dilute. The measurement counts from here.
        for name, _ in builds:
            if not readers[name].enough.wait(20):
                raise RuntimeError(f"{name}: no headings through gpsd within 20 s")
        time.sleep(max(0, started + SETTLE_SECONDS - time.monotonic()))
        before = {}
        for name, _ in builds:
            h, g = processes[name]["headingd"].pid, processes[name]["gpsd"].pid
            before[name] = (cpu_ns(h), cpu_ns(g), thread_wakeups(h), thread_wakeups(g), readers[name].count, time.monotonic())
        time.sleep(seconds)
        results = {}
        for name, _ in builds:
            h, g = processes[name]["headingd"].pid, processes[name]["gpsd"].pid
            opened, closed = before[name][5], time.monotonic()
            headings = readers[name].count - before[name][4]
            hw = thread_wakeups(h)
            hw.subtract(before[name][2])
            gw = thread_wakeups(g)
            gw.subtract(before[name][3])
            latencies = [(arrived - sent[name][key]) * 1e3 for arrived, key in list(readers[name].arrivals)
                         if opened <= arrived <= closed and key in sent[name]]
            results[name] = {
                "headingd_ns": cpu_ns(h) - before[name][0],
                "gpsd_ns": cpu_ns(g) - before[name][1],
                "headingd_threads": hw,
                "gpsd_wakeups": sum(gw.values()),
                "headings": headings,
                "rss_kib": rss_kib(h),
                "latency_p50": percentile(latencies, 0.5),
                "latency_p99": percentile(latencies, 0.99),
            }
        return results
    finally:
        stop.set()
        for entry in processes.values():
            for key in ("headingd", "gpsd"):
                if key in entry:
                    entry[key].terminate()
        for entry in processes.values():
            for key in ("headingd", "gpsd"):
                if key in entry:
                    try:
                        entry[key].wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        entry[key].kill()
        for feeder, server in feeders:
            server.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--headingd", action="append", required=True, help="NAME=PATH, once per build")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--rates", default="10,50")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--floor", help="the post-and-decode floor's program (Benchmarks' LiveFloor)")
    arguments = parser.parse_args()
    builds = [tuple(item.split("=", 1)) for item in arguments.headingd]
    if arguments.floor:
        builds.append(("floor", arguments.floor))
    rates = [float(rate) for rate in arguments.rates.split(",")]
    for rate in rates:
        rounds = collections.defaultdict(list)
        for round_index in range(arguments.rounds):
            # The order of starting alternates, so no build always starts first.
            order = builds if round_index % 2 == 0 else list(reversed(builds))
            for name, result in run(order, rate, arguments.seconds).items():
                rounds[name].append(result)
        print(f"live through gpsd, {rate:g} Hz, {arguments.seconds:g} s, {arguments.rounds} rounds (medians):")
        for name, _ in builds:
            results = rounds[name]
            ratio = statistics.median(r["headingd_ns"] / r["gpsd_ns"] for r in results if r["gpsd_ns"] > 0)
            headingd_ms = statistics.median(r["headingd_ns"] for r in results) / 1e6
            gpsd_ms = statistics.median(r["gpsd_ns"] for r in results) / 1e6
            headings = statistics.median(r["headings"] for r in results)
            per_heading = statistics.median(sum(r["headingd_threads"].values()) / max(1, r["headings"]) for r in results)
            gpsd_per = statistics.median(r["gpsd_wakeups"] / max(1, r["headings"]) for r in results)
            threads = collections.Counter()
            for r in results:
                threads.update(r["headingd_threads"])
            total = sum(r["headings"] for r in results) or 1
            split = ", ".join(f"{thread} {count / total:.2f}" for thread, count in threads.most_common(5) if count > 0)
            rss = statistics.median(r["rss_kib"] for r in results) / 1024
            p50 = statistics.median(r["latency_p50"] for r in results)
            p99 = statistics.median(r["latency_p99"] for r in results)
            against_floor = ""
            if arguments.floor and name != "floor":
                # Each round's ratio to the floor of that same round, then the median.
                floors = rounds["floor"]
                cpu = statistics.median(r["headingd_ns"] / f["headingd_ns"] for r, f in zip(results, floors) if f["headingd_ns"] > 0)
                late50 = statistics.median(r["latency_p50"] / f["latency_p50"] for r, f in zip(results, floors))
                late99 = statistics.median(r["latency_p99"] / f["latency_p99"] for r, f in zip(results, floors))
                against_floor = f"over the floor: CPU {cpu:.2f}, latency p50 {late50:.2f} p99 {late99:.2f}; "
            print(f"  {name}: {against_floor}CPU {headingd_ms:.0f} ms ({ratio:.2f} its gpsd's {gpsd_ms:.0f} ms, "
                  f"{headings:.0f} headings); latency p50 {p50:.2f} ms p99 {p99:.2f} ms; "
                  f"wake-ups per heading {per_heading:.2f} (gpsd {gpsd_per:.2f}; by thread: {split}); VmRSS {rss:.1f} MB")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
