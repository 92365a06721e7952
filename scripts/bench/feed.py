#!/usr/bin/env python3
# headingd — the cost of reading an NMEA 0183 TCP feed: headingd directly against gpsd reading the
# same feed (`gpsd -N tcp://…`), side by side, and flat out over loopback against a replay.
# SPDX-License-Identifier: Apache-2.0
"""Usage: feed.py --headingd PATH [--baseline PATH] [--mix compass|gps-logs|both] [--seconds S] [--rate HZ] [--rounds R]

Live: feed servers on loopback send the same lines at RATE lines a second for S seconds, started
together: one to each headingd build (--source tcp://…; --baseline adds a starting build), one to
gpsd alone (gpsd -N -n tcp://…, with no client, so only its reading and decoding count), and one
to gpsd with headingd reading that gpsd (--source gpsd://…): the way headingd had to read a feed
before it read one itself, whose cost is the two processes' sum. Two mixes of lines, each run:
- compass: HDT at RATE and RMC once a second (issue 38's measure): every line is a heading, for
  headingd the whole way (decoder, processor, notification, stdout log), for gpsd a decode;
- gps-logs: Tests/Fixtures/gpsd-logs (NMEA only, in a loop): a GPS's talk, of which about a
  quarter is a heading (HDG, RMC), the rest skipped by headingd at once and decoded by gpsd.
The two ratios differ for that reason (1.4× on the logs when it was 2.6× on the compass).
Each process's CPU (all threads' time on a CPU, from /proc/PID/task/*/schedstat) and its
wake-ups (voluntary context switches of all its threads) are read at the end.

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


def compass_lines(rate):
    """HDT at `rate` a second, turning slowly, with an RMC once a second: one second's lines,
    repeated (live.py's mix, the one issue 38 names)."""
    lines = []
    for index in range(max(1, int(rate))):
        heading = (index * 0.7) % 360
        lines.append(sentence(f"GPHDT,{heading:.1f},T"))
        if index == 0:
            lines.append(sentence(f"GPRMC,120000.00,A,4807.038,N,01131.000,E,5.5,{heading:.1f},230394,003.1,W"))
    return lines


def nmea_checksum(body):
    value = 0
    for byte in body.encode():
        value ^= byte
    return f"{value:02X}"


def sentence(body):
    """`$BODY*hh` with its checksum and CR LF, as bytes (live.py's sentences too)."""
    return f"${body}*{nmea_checksum(body)}\r\n".encode()


def live(headingd, rate, seconds, mix="gps-logs", baseline=None):
    lines = compass_lines(rate) if mix == "compass" else nmea_lines()
    # The compass mix sends a second's lines (RATE HDT and one RMC) at RATE + 1 lines a second.
    pace = rate + 1 if mix == "compass" else rate
    start = threading.Event()
    servers = [listen() for _ in range(4 if baseline else 3)]
    threads = [threading.Thread(target=serve_paced, args=(server, lines, pace, seconds, start)) for server, _ in servers]
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
    if baseline:
        processes["baseline"] = subprocess.Popen(
            [baseline, "--source", f"tcp://127.0.0.1:{servers[3][1]}", "--format", "json", "--stale-after", "3600"], **quiet)
    time.sleep(0.5)
    processes["headingd through gpsd"] = subprocess.Popen(
        [headingd, "--source", f"gpsd://127.0.0.1:{servers[2][1] + 1000}", "--format", "json", "--stale-after", "3600"], **quiet)
    # All connected and started up, the start-up page release (2 s after the start) done: the
    # measurement counts from here.
    time.sleep(3)
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
    parser.add_argument("--baseline", help="a starting build, run beside on its own feed")
    parser.add_argument("--mix", choices=["compass", "gps-logs", "both"], default="both")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--rate", type=float, default=10)
    parser.add_argument("--sentences", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--file", required=True)
    parser.add_argument("--headings", type=int, required=True)
    arguments = parser.parse_args()
    mixes = ["compass", "gps-logs"] if arguments.mix == "both" else [arguments.mix]
    for mix in mixes:
        for rate in (arguments.rate, arguments.rate * 5):
            # Medians over the rounds of each process's CPU and wake-ups (one round's tens of ms move by half).
            rounds = [live(arguments.headingd, rate, arguments.seconds, mix, arguments.baseline) for _ in range(arguments.rounds)]
            results = {name: (statistics.median(r[name][0] for r in rounds), int(statistics.median(r[name][1] for r in rounds)))
                       for name in rounds[0]}
            (h_cpu, h_wake), (g_cpu, g_wake) = results["headingd"], results["gpsd"]
            behind = results["gpsd (behind headingd)"][0] + results["headingd through gpsd"][0]
            ratio = h_cpu / g_cpu if g_cpu > 0 else float("nan")
            what = f"HDT at {rate:g} Hz + RMC at 1 Hz" if mix == "compass" else f"gpsd-logs at {rate:g} lines/s"
            print(f"live {mix}, {what}, {arguments.seconds:g} s, median of {arguments.rounds}: headingd direct {h_cpu * 1000:.0f} ms CPU, {h_wake} wake-ups; "
                  f"gpsd alone {g_cpu * 1000:.0f} ms CPU, {g_wake} wake-ups; headingd/gpsd CPU {ratio:.2f}; "
                  f"gpsd + headingd through it {behind * 1000:.0f} ms ({results['gpsd (behind headingd)'][0] * 1000:.0f} + "
                  f"{results['headingd through gpsd'][0] * 1000:.0f}); direct/that {h_cpu / behind if behind > 0 else float('nan'):.2f}")
            if "baseline" in results:
                b_cpu = results["baseline"][0]
                print(f"    baseline direct {b_cpu * 1000:.0f} ms CPU: baseline/gpsd {b_cpu / g_cpu if g_cpu > 0 else float('nan'):.2f}, "
                      f"headingd/baseline {h_cpu / b_cpu if b_cpu > 0 else float('nan'):.2f}")
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
