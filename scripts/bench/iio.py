#!/usr/bin/env python3
# headingd — the cost of an IIO source: a headingd reading a magnetometer, an accelerometer and a
# gyroscope (a fake sysfs tree, so only headingd's own work is measured) at a rate, for a while
# after start-up: CPU of all its threads (the sum of /proc/PID/task/*/schedstat), voluntary
# context switches (wake-ups) per sample, and headings delivered.
# SPDX-License-Identifier: Apache-2.0
import argparse, os, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from feed import cpu_seconds, wakeups  # noqa: E402  (the same measures as the feed benchmark's)

def tree(root):
    devices = {
        "iio:device0": ("hmc5883l", "magn", "0.000909", (190, 40, -450)),
        "iio:device1": ("lis3dh", "accel", "0.009582", (3, -20, 1023)),
        "iio:device2": ("l3g4200d", "anglvel", "0.000153", (12, -7, 4)),
    }
    for device, (name, kind, scale, raw) in devices.items():
        os.makedirs(f"{root}/{device}", exist_ok=True)
        with open(f"{root}/{device}/name", "w") as f: f.write(name + "\n")
        with open(f"{root}/{device}/in_{kind}_scale", "w") as f: f.write(scale + "\n")
        for axis, value in zip("xyz", raw):
            with open(f"{root}/{device}/in_{kind}_{axis}_raw", "w") as f: f.write(f"{value}\n")
    # A calibration in the state directory: applied, and refined at sea, as on a boat.
    with open(f"{root}/calibration-hmc5883l.json", "w") as f:
        f.write('{"offset": [3, -2, 1], "softIron": [[1.02, 0.01, 0], [0.01, 0.98, 0], [0, 0, 1]], "mode": "ellipsoid", '
                '"fieldStrength": 49, "residual": 0.2, "headingError": 0.5, "coverage": 0.8, "samples": 500, "date": "2026-11-01T00:00:00Z"}')

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--headingd", required=True)
    parser.add_argument("--rate", type=float, default=25)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--warmup", type=float, default=5)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        tree(root)
        process = subprocess.Popen(
            [arguments.headingd, "--source", f"iio:?root={root}&rate={arguments.rate:g}", "--format", "json", "--stale-after", "60"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env={**os.environ, "STATE_DIRECTORY": root})
        count = [0]
        def read():
            for _ in process.stdout: count[0] += 1
        threading.Thread(target=read, daemon=True).start()
        time.sleep(arguments.warmup)
        cpu0, switches0, headings0, t0 = cpu_seconds(process.pid), wakeups(process.pid), count[0], time.monotonic()
        time.sleep(arguments.seconds)
        cpu1, switches1, headings1, t1 = cpu_seconds(process.pid), wakeups(process.pid), count[0], time.monotonic()
        process.terminate(); process.wait(timeout=10)
    elapsed = t1 - t0
    headings = headings1 - headings0
    print(f"iio bench: {arguments.rate:g} Hz, magnetometer + accelerometer + gyroscope, {elapsed:.0f} s: "
          f"{(cpu1 - cpu0) / elapsed * 100:.2f} % of a core, {headings} headings ({headings / elapsed:.1f}/s), "
          f"{(switches1 - switches0) / max(headings, 1):.2f} wake-ups a sample")

main()
