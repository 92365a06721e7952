#!/usr/bin/env python3
# headingd — the cost of an IIO source: a headingd reading a magnetometer, an accelerometer and a
# gyroscope (a fake sysfs tree, so only headingd's own work is measured) at a rate, for a while
# after start-up: CPU of all its threads (the sum of /proc/PID/task/*/schedstat), voluntary
# context switches (wake-ups) per sample, and headings delivered. --buffered: the same three
# devices under umockdev, read as whole scans from their buffers (scripted at the rate), beside
# the same testbed read directly (buffer=false): umockdev's preloaded library and its replay
# thread run inside headingd, so both of those carry its cost alike.
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

def esc(data):
    out = bytearray()
    for byte in data:
        if byte < 32: out += bytes([94, byte + 64])
        elif byte == 94: out += b"^`"
        else: out.append(byte)
    return bytes(out)

def testbed(root, rate, seconds):
    """A umockdev description of the three devices, each with a buffer and its own trigger, and a
    script of scans at `rate` for each (`seconds` long)."""
    import struct
    devices = [("iio:device0", "hmc5883l", "magn", "0.000909", (190, 40, -450)),
               ("iio:device1", "lis3dh", "accel", "0.009582", (3, -20, 1023)),
               ("iio:device2", "l3g4200d", "anglvel", "0.000153", (12, -7, 4))]
    text = ""
    period = int(round(1000 / rate))
    for number, (device, name, kind, scale, raw) in enumerate(devices):
        lines = [f"P: /devices/platform/bench/{name}/{device}", f"N: {device}", f"E: DEVNAME=/dev/{device}", "E: MAJOR=241",
                 f"E: MINOR={number}", "E: SUBSYSTEM=iio", f"A: name={name}", f"A: in_{kind}_scale={scale}"]
        lines += [f"A: in_{kind}_{axis}_raw={value}" for axis, value in zip("xyz", raw)]
        lines += ["A: buffer/enable=0", "A: buffer/length=64", "A: trigger/current_trigger="]
        for index, channel in enumerate([f"in_{kind}_x", f"in_{kind}_y", f"in_{kind}_z", "in_timestamp"]):
            kind_type = "le:s64/64>>0" if channel == "in_timestamp" else "le:s16/16>>0"
            lines += [f"A: scan_elements/{channel}_en=0", f"A: scan_elements/{channel}_index={index}", f"A: scan_elements/{channel}_type={kind_type}"]
        text += "\n".join(lines) + "\n\n"
        text += f"P: /devices/platform/bench/{name}/trigger{number}\nE: SUBSYSTEM=iio\nA: name={name}-dev{number}\n\n"
        with open(f"{root}/{device}.script", "wb") as script:
            for index in range(int(seconds * rate)):
                scan = struct.pack("<hhhxxq", raw[0] + index % 3, raw[1], raw[2], 1_000_000_000 + index * period * 1_000_000)
                script.write(b"r %d " % period + esc(scan) + b"\n")
    with open(f"{root}/devices.umockdev", "w") as description: description.write(text)
    return ["umockdev-run", "-d", f"{root}/devices.umockdev"] + sum(
        (["-s", f"/dev/{device}={root}/{device}.script"] for device, *_ in devices), []) + ["--"]

def measure(command, arguments, environment, child):
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environment)
    count = [0]
    def read():
        for _ in process.stdout: count[0] += 1
    threading.Thread(target=read, daemon=True).start()
    time.sleep(arguments.warmup)
    pid = process.pid
    if child:  # umockdev-run's child is headingd
        with open(f"/proc/{pid}/task/{pid}/children") as children: pid = int(children.read().split()[0])
    cpu0, switches0, headings0, t0 = cpu_seconds(pid), wakeups(pid), count[0], time.monotonic()
    time.sleep(arguments.seconds)
    cpu1, switches1, headings1, t1 = cpu_seconds(pid), wakeups(pid), count[0], time.monotonic()
    os.kill(pid, 15)
    if child:  # umockdev's replay would keep umockdev-run until its scripts have played
        deadline = time.monotonic() + 10
        while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline: time.sleep(0.05)
        process.kill()
    process.wait(timeout=10)
    elapsed = t1 - t0
    return (cpu1 - cpu0) / elapsed * 100, (headings1 - headings0) / elapsed, (switches1 - switches0) / max(headings1 - headings0, 1)

def buffered(arguments):
    with tempfile.TemporaryDirectory() as root:
        launcher = testbed(root, arguments.rate, arguments.warmup + arguments.seconds + 10)
        environment = {**os.environ, "STATE_DIRECTORY": root}
        base = [arguments.headingd, "--format", "json", "--stale-after", "60", "--source"]
        results = {}
        # Direct: the same testbed, its character devices not scripted (nobody reads them).
        direct = launcher[:3] + ["--"]
        for label, command in [("buffered", launcher + base + [f"iio:?rate={arguments.rate:g}"]),
                               ("direct", direct + base + [f"iio:?rate={arguments.rate:g}&buffer=false"])]:
            results[label] = measure(command, arguments, environment, child=True)
    for label, (cpu, rate, switches) in results.items():
        print(f"iio bench: {arguments.rate:g} Hz under umockdev, {label}: {cpu:.2f} % of a core, {rate:.1f} headings/s, {switches:.2f} wake-ups a heading")
    print(f"iio bench: buffered ÷ direct CPU {results['buffered'][0] / max(results['direct'][0], 1e-9):.2f}")

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--headingd", required=True)
    parser.add_argument("--rate", type=float, default=25)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--warmup", type=float, default=5)
    parser.add_argument("--buffered", action="store_true", help="buffered beside direct, under umockdev")
    arguments = parser.parse_args()
    if arguments.buffered:
        return buffered(arguments)
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
