#!/usr/bin/env python3
# headingd — the cost of reading an NMEA 0183 TCP feed: headingd directly against gpsd reading the
# same feed (`gpsd -N tcp://…`), side by side, and flat out over loopback against a replay.
# SPDX-License-Identifier: Apache-2.0
"""Usage: feed.py --headingd PATH [--seconds S] [--rate HZ] [--sentences N] [--rounds R]

Live: three feed servers on loopback send the same lines (Tests/Fixtures/gpsd-logs, NMEA only, in
a loop) at RATE lines a second for S seconds, started together: one to headingd (--source
tcp://…), one to gpsd alone (gpsd -N -n tcp://…, with no client, so only its reading and decoding
count), and one to gpsd with headingd reading that gpsd (--source gpsd://…): the way headingd had
to read a feed before it read one itself, whose cost is the two processes' sum.
Each process's CPU (utime + stime from /proc/PID/stat) and its wake-ups (voluntary context
switches of all its threads) are read at the end.

Flat out: a server sends a generated recording of N sentences as fast as loopback takes it to
headingd --source tcp://… --count H; beside it, headingd --source replay:FILE --speed max --count H
on the same file. Both print JSON to /dev/null; wall time and CPU are medians over the rounds.
"""
import argparse
import glob
import os
import socket
import statistics
import subprocess
import sys
import threading
import time

HERTZ = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """Time on a CPU of all the process's threads, from schedstat (nanoseconds: the clock ticks
    of /proc/PID/stat are 10 ms, too coarse for a process that works a few milliseconds a second).
    Threads that ended are not counted: the processes here keep theirs."""
    total = 0
    for path in glob.glob(f"/proc/{pid}/task/*/schedstat"):
        try:
            total += int(open(path).read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total / 1e9


def wakeups(pid):
    total = 0
    for status in glob.glob(f"/proc/{pid}/task/*/status"):
        try:
            for line in open(status):
                if line.startswith("voluntary_ctxt_switches"):
                    total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total


def listen():
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    return server, server.getsockname()[1]


def serve_paced(server, lines, rate, seconds, start):
    connection, _ = server.accept()
    start.wait()
    deadline = time.monotonic() + seconds
    interval = 1 / rate
    next_time = time.monotonic()
    index = 0
    try:
        while time.monotonic() < deadline:
            connection.sendall(lines[index % len(lines)])
            index += 1
            next_time += interval
            delay = next_time - time.monotonic()
            if delay > 0:
                time.sleep(delay)
    except OSError:
        pass
    connection.close()


def nmea_lines():
    lines = []
    for path in sorted(glob.glob(os.path.join(os.path.dirname(__file__), "../../Tests/Fixtures/gpsd-logs/*.log"))):
        for raw in open(path, "rb"):
            if raw.startswith(b"$") and raw.isascii():
                lines.append(raw.rstrip(b"\r\n") + b"\r\n")
    return lines


def live(headingd, rate, seconds):
    lines = nmea_lines()
    start = threading.Event()
    servers = [listen(), listen(), listen()]
    threads = [threading.Thread(target=serve_paced, args=(server, lines, rate, seconds, start)) for server, _ in servers]
    for thread in threads:
        thread.start()
    devnull = subprocess.DEVNULL
    quiet = dict(stdout=devnull, stderr=devnull)
    processes = {
        "headingd": subprocess.Popen([headingd, "--source", f"tcp://127.0.0.1:{servers[0][1]}", "--format", "json", "--stale-after", "3600"], **quiet),
        "gpsd": subprocess.Popen(["/usr/sbin/gpsd", "-N", "-n", "-S", str(servers[1][1] + 1000), f"tcp://127.0.0.1:{servers[1][1]}"], **quiet),
        "gpsd (behind headingd)": subprocess.Popen(
            ["/usr/sbin/gpsd", "-N", "-n", "-S", str(servers[2][1] + 1000), f"tcp://127.0.0.1:{servers[2][1]}"], **quiet),
    }
    time.sleep(0.5)
    processes["headingd through gpsd"] = subprocess.Popen(
        [headingd, "--source", f"gpsd://127.0.0.1:{servers[2][1] + 1000}", "--format", "json", "--stale-after", "3600"], **quiet)
    time.sleep(1.5)  # all connected and started up; the measurement counts from here
    before = {name: (cpu_seconds(p.pid), wakeups(p.pid)) for name, p in processes.items()}
    start.set()
    for thread in threads:
        thread.join()
    after = {name: (cpu_seconds(p.pid), wakeups(p.pid)) for name, p in processes.items()}
    for process in processes.values():
        process.terminate()
        process.wait()
    return {name: (after[name][0] - before[name][0], after[name][1] - before[name][1]) for name in after}


def flat_out(headingd, path, headings):
    server, port = listen()
    data = open(path, "rb").read()

    def send():
        connection, _ = server.accept()
        connection.sendall(data)
        time.sleep(30)
        connection.close()

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    began = time.monotonic()
    process = subprocess.Popen([headingd, "--source", f"tcp://127.0.0.1:{port}", "--format", "json", "--count", str(headings),
                                "--stale-after", "3600"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    usage = os.wait4(process.pid, 0)[2]
    tcp = (time.monotonic() - began, usage.ru_utime + usage.ru_stime)
    began = time.monotonic()
    process = subprocess.Popen([headingd, "--source", f"replay:{path}", "--speed", "max", "--format", "json", "--count", str(headings)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    usage = os.wait4(process.pid, 0)[2]
    replay = (time.monotonic() - began, usage.ru_utime + usage.ru_stime)
    server.close()
    return tcp, replay


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--headingd", required=True)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--rate", type=float, default=10)
    parser.add_argument("--sentences", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--file", required=True)
    parser.add_argument("--headings", type=int, required=True)
    arguments = parser.parse_args()
    for rate in (arguments.rate, arguments.rate * 5):
        results = live(arguments.headingd, rate, arguments.seconds)
        (h_cpu, h_wake), (g_cpu, g_wake) = results["headingd"], results["gpsd"]
        behind = results["gpsd (behind headingd)"][0] + results["headingd through gpsd"][0]
        ratio = h_cpu / g_cpu if g_cpu > 0 else float("nan")
        print(f"live {rate:g} lines/s for {arguments.seconds:g} s: headingd direct {h_cpu * 1000:.0f} ms CPU, {h_wake} wake-ups; "
              f"gpsd alone {g_cpu * 1000:.0f} ms CPU, {g_wake} wake-ups; headingd/gpsd CPU {ratio:.2f}; "
              f"gpsd + headingd through it {behind * 1000:.0f} ms ({results['gpsd (behind headingd)'][0] * 1000:.0f} + "
              f"{results['headingd through gpsd'][0] * 1000:.0f}); direct/that {h_cpu / behind if behind > 0 else float('nan'):.2f}")
    tcp_runs, replay_runs = [], []
    for _ in range(arguments.rounds):
        tcp, replay = flat_out(arguments.headingd, arguments.file, arguments.headings)
        tcp_runs.append(tcp)
        replay_runs.append(replay)
    tcp_wall = statistics.median(r[0] for r in tcp_runs)
    tcp_cpu = statistics.median(r[1] for r in tcp_runs)
    replay_wall = statistics.median(r[0] for r in replay_runs)
    replay_cpu = statistics.median(r[1] for r in replay_runs)
    print(f"flat out, {arguments.headings} headings: TCP feed {tcp_wall:.2f} s wall, {tcp_cpu:.2f} s CPU "
          f"({arguments.headings / tcp_wall / 1000:.0f} k headings/s); replay {replay_wall:.2f} s wall, {replay_cpu:.2f} s CPU "
          f"({arguments.headings / replay_wall / 1000:.0f} k headings/s); TCP/replay rate {replay_wall / tcp_wall:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
