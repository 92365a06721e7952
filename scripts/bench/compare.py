#!/usr/bin/env python3
# headingd — the measuring half of scripts/bench-compare (see there).
# SPDX-License-Identifier: Apache-2.0
import argparse
import os
import statistics
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))


def run(command, stdin_path=None):
    """Runs command with stdout to /dev/null; returns (seconds, CPU seconds, peak RSS in KiB, stderr).

    CPU is user + system time of all the command's threads (GNU time's %U and %S): a flat-out
    headingd prints on a thread of its own beside its decoding, so its wall time is less than its CPU.

    Peak RSS comes from GNU time, which forks the command from its own small process: Linux
    carries a process's peak RSS across exec, so a command spawned straight from this Python
    would report at least Python's own size.
    """
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    started = time.perf_counter()
    process = subprocess.run(["/usr/bin/time", "-f", "RSS %M %U %S", *command], stdin=stdin,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - started
    if stdin_path:
        stdin.close()
    errors = process.stderr.decode(errors="replace")
    if process.returncode != 0:
        sys.exit(f"bench-compare: {command[0]} failed ({process.returncode}): {errors[-500:]}")
    lines = errors.splitlines()
    fields = lines[-1].split() if lines and lines[-1].startswith("RSS ") else ["RSS", "0", "0", "0"]
    rss, cpu = int(fields[1]), float(fields[2]) + float(fields[3])
    return elapsed, cpu, rss, "\n".join(lines[:-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--headingd", required=True)
    parser.add_argument("--python", required=True)
    parser.add_argument("--sentences", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", help="another headingd build, run beside it on the NMEA file (a starting build)")
    arguments = parser.parse_args()

    os.makedirs(".build/bench", exist_ok=True)
    path = f".build/bench/nmea-{arguments.sentences}.nmea"
    if not os.path.exists(path):
        subprocess.run([os.path.join(here, "..", "generate-nmea"), str(arguments.sentences), path, "--seed", "1"], check=True)
    size = os.path.getsize(path)
    print(f"file: {path}, {arguments.sentences} sentences (HDT, HDG, THS, RMC), {size / 1e6:.1f} MB")
    # The same recording as gpsd 3.22 reports it (gpspipe -w form): ATT for HDT, TPV for RMC.
    json_path = f".build/bench/gpsd-{arguments.sentences}.jsonl"
    if not os.path.exists(json_path):
        subprocess.run([os.path.join(here, "..", "generate-nmea"), str(arguments.sentences), json_path, "--seed", "1", "--gpsd-json"], check=True)
    with open(json_path, "rb") as reports:
        report_count = sum(1 for _ in reports)
    print(f"file: {json_path}, the same recording as {report_count} gpsd reports (ATT, TPV), {os.path.getsize(json_path) / 1e6:.1f} MB")

    contenders = {
        "headingd": ([arguments.headingd, "--source", f"replay:{path}", "--speed", "max", "--format", "json"], None),
        "headingd-gpsd-json": ([arguments.headingd, "--source", f"replay:{json_path}", "--speed", "max", "--format", "json"], None),
        "gpsdecode": (["gpsdecode"], path),  # reads standard input
        "pynmea2": ([arguments.python, os.path.join(here, "pynmea2-parse.py"), path], None),
        "cat": (["cat", path], None),
    }
    if arguments.baseline:
        contenders["headingd-baseline"] = ([arguments.baseline, "--source", f"replay:{path}", "--speed", "max", "--format", "json"], None)
    times = {name: [] for name in contenders}
    cpu_times = {name: [] for name in contenders}
    peak = {name: 0 for name in contenders}
    notes = {}
    for round_number in range(arguments.rounds):
        for name, (command, stdin_path) in contenders.items():
            elapsed, cpu, rss, errors = run(command, stdin_path)
            times[name].append(elapsed)
            cpu_times[name].append(cpu)
            peak[name] = max(peak[name], rss)
            if name.startswith("headingd"):
                notes[name] = next((line for line in errors.splitlines() if "replay of" in line), "")
        print(f"round {round_number + 1}: " + ", ".join(f"{name} {times[name][-1]:.3f} s" for name in contenders), flush=True)

    medians = {name: statistics.median(values) for name, values in times.items()}
    cpu = {name: statistics.median(values) for name, values in cpu_times.items()}
    print()
    # Rates are of the recording's NMEA sentences for every contender: the same boat, the same seconds.
    print(f"{'':18} {'median s':>9} {'sentences/s':>12} {'÷ headingd':>12} {'CPU s':>7} {'÷ headingd':>11} {'peak RSS':>9}")
    for name in contenders:
        rate = arguments.sentences / medians[name]
        ratio = medians[name] / medians["headingd"]
        cpu_ratio = cpu[name] / cpu["headingd"] if cpu["headingd"] else 0
        print(f"{name:18} {medians[name]:9.3f} {rate:12,.0f} {ratio:11.2f}× {cpu[name]:7.3f} {cpu_ratio:10.2f}× {peak[name] / 1024:7.1f} MB")
    print()
    print(f"headingd: {notes.get('headingd', '')}")
    print(f"headingd-gpsd-json: {notes.get('headingd-gpsd-json', '')}")
    if arguments.baseline:
        print(f"headingd-baseline ({arguments.baseline}) vs gpsdecode: {medians['gpsdecode'] / medians['headingd-baseline']:.2f}× "
              f"(CPU {cpu['gpsdecode'] / cpu['headingd-baseline']:.2f}×)")
    print(f"headingd vs gpsdecode: {medians['gpsdecode'] / medians['headingd']:.2f}× (target ≥ 3, stretch 5; "
          f"CPU {cpu['gpsdecode'] / cpu['headingd']:.2f}×); "
          f"the gpsd JSON form vs gpsdecode on NMEA: {medians['gpsdecode'] / medians['headingd-gpsd-json']:.2f}× (target ≥ 1); "
          f"vs pynmea2: {medians['pynmea2'] / medians['headingd']:.2f}×; "
          f"peak RSS {peak['headingd'] / 1024:.1f} MB")


if __name__ == "__main__":
    main()
