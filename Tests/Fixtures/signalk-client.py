#!/usr/bin/python3
# headingd — a Signal K client no one here wrote (Debian's python3-websocket and python3-requests),
# validating what headingd serves against the published schemas (validate-signalk.py's store).
# SPDX-License-Identifier: Apache-2.0
#
# Usage: signalk-client.py SCENARIO PORT [SECONDS]
# Prints one JSON object with what it saw on its last line; exits 1 with a reason on the way when
# something is invalid. Scenarios: schema, rates, faults, hostile.
import json
import os
import socket
import sys
import time
import warnings

import requests
import websocket
from jsonschema import Draft4Validator, RefResolver

warnings.simplefilter("ignore", DeprecationWarning)
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "signalk-schemas")
store = {}
for directory, _, files in os.walk(here):
    for name in files:
        if name.endswith(".json"):
            with open(os.path.join(directory, name)) as file:
                schema = json.load(file)
            if "id" in schema:
                store[schema["id"].rstrip("#")] = schema
store["https://signalk.org/specification/1.5.1/schemas/groups/definitions.json"] = store[
    "https://signalk.org/specification/1.5.1/schemas/definitions.json"]
validators = {}


def validate(kind, message):
    if kind not in validators:
        with open(os.path.join(here, kind + ".json")) as file:
            schema = json.load(file)
        validators[kind] = Draft4Validator(schema, resolver=RefResolver.from_schema(schema, store=store))
    errors = list(validators[kind].iter_errors(message))
    if errors:
        sys.exit(f"invalid {kind}: {errors[0].message[:300]} in {json.dumps(message)[:500]}")


def fail(reason):
    sys.exit(reason)


scenario, port = sys.argv[1], int(sys.argv[2])
seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 5
base = f"http://127.0.0.1:{port}"
stream = f"ws://127.0.0.1:{port}/signalk/v1/stream"


def connect(query="subscribe=self", timeout=10):
    ws = websocket.create_connection(f"{stream}?{query}", timeout=timeout)
    hello = json.loads(ws.recv())
    validate("hello", hello)
    return ws, hello


def collect(ws, seconds, until=None):
    """Every message for `seconds` (or until `until(message)`), each validated as a delta or a reply."""
    messages = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ws.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            text = ws.recv()
        except websocket.WebSocketTimeoutException:
            break
        message = json.loads(text)
        if "updates" in message:
            validate("delta", message)
        messages.append(message)
        if until and until(message):
            break
    return messages


def values(message):
    for update in message.get("updates", []):
        for value in update.get("values", []):
            yield value["path"], value["value"], update.get("timestamp")


if scenario == "schema":
    discovery = requests.get(f"{base}/signalk", timeout=10).json()
    validate("discovery", discovery)
    ws, hello = connect()
    deltas = [m for m in collect(ws, seconds) if "updates" in m]
    model = requests.get(f"{base}/signalk/v1/api/", timeout=10).json()
    validate("signalk", model)
    leaf = requests.get(f"{base}/signalk/v1/api/vessels/self/navigation/headingTrue", timeout=10)
    missing = requests.get(f"{base}/signalk/v1/api/vessels/self/navigation/noSuchPath", timeout=10)
    put = requests.put(f"{base}/signalk/v1/api/vessels/self/navigation/headingTrue", json={"value": 1}, timeout=10)
    metas = [m for m in deltas if any("meta" in u for u in m["updates"])]
    print(json.dumps({
        "hello": hello, "discovery": discovery, "deltas": len(deltas), "firstHasMeta": bool(deltas) and deltas[0] in metas,
        "metaDeltas": len(metas), "self": model["self"], "leaf": leaf.json(), "leafStatus": leaf.status_code,
        "missingStatus": missing.status_code, "missingBody": missing.json(), "putStatus": put.status_code,
        "paths": sorted({p for m in deltas for p, _, _ in values(m)}),
    }))

elif scenario == "rates":
    # Client a: headingTrue at most once a second; client b: everything as it comes.
    a, _ = connect("subscribe=none")
    b, _ = connect("subscribe=none")
    a.send(json.dumps({"context": "vessels.self", "subscribe": [{"path": "navigation.headingTrue", "minPeriod": 1000, "policy": "instant"}]}))
    b.send(json.dumps({"context": "vessels.self", "subscribe": [{"path": "navigation.*", "policy": "instant"}]}))
    started = time.monotonic()
    counts = {"a": 0, "b": 0}
    a_paths = set()
    while time.monotonic() - started < seconds:
        for name, ws in (("a", a), ("b", b)):
            for message in collect(ws, 0.05):
                if "updates" in message:
                    counts[name] += 1
                    if name == "a":
                        a_paths |= {p for p, _, _ in values(message)}
    a.send(json.dumps({"context": "vessels.self", "unsubscribe": [{"path": "*"}]}))
    collect(a, 0.3)  # what was on the way
    after = [m for m in collect(a, 2) if "updates" in m]
    print(json.dumps({"a": counts["a"], "b": counts["b"], "aPaths": sorted(a_paths), "afterUnsubscribe": len(after), "seconds": seconds}))

elif scenario == "faults":
    ws, _ = connect("subscribe=self")
    seen = []
    for message in collect(ws, seconds):
        for path, value, timestamp in values(message):
            if path.startswith("notifications."):
                seen.append({"path": path, "state": value["state"], "method": value["method"], "message": value["message"]})
            elif path == "navigation.headingTrue":
                seen.append({"path": path, "value": value, "timestamp": timestamp})
    model = requests.get(f"{base}/signalk/v1/api/", timeout=10).json()
    validate("signalk", model)
    print(json.dumps({"seen": seen}))

elif scenario == "hostile":
    result = {}
    reader, _ = connect("subscribe=self")
    # Garbage: not JSON, JSON but no request, a binary frame: each gets an error reply, the session goes on.
    victim, _ = connect("subscribe=none")
    replies = []
    for junk in ["{{{not json", "[1,2,3]", json.dumps({"put": {"path": "x", "value": 1}}), json.dumps({"subscribe": [{"path": "a b"}]})]:
        victim.send(junk)
        replies += [m for m in collect(victim, 2, until=lambda m: "statusCode" in m) if "statusCode" in m]
    victim.send_binary(b"\x00\xff" * 100)
    replies += [m for m in collect(victim, 2, until=lambda m: "statusCode" in m) if "statusCode" in m]
    result["garbageReplies"] = [r["statusCode"] for r in replies]
    # 1,000 subscribe messages: the set stays bounded, the excess refused, the session alive.
    refused = 0
    for index in range(1000):
        victim.send(json.dumps({"context": "vessels.self", "subscribe": [{"path": f"navigation.p{index}", "policy": "instant"}]}))
    for message in collect(victim, 5):
        if message.get("statusCode") == 400:
            refused += 1
    result["subscribeRefusals"] = refused
    victim.send(json.dumps({"context": "vessels.self", "unsubscribe": [{"path": "*"}]}))
    victim.send(json.dumps({"context": "vessels.self", "subscribe": [{"path": "navigation.headingTrue", "policy": "instant"}]}))
    result["aliveAfterSubscribeFlood"] = any("updates" in m for m in collect(victim, 3))
    # A 10 MB message: the connection is closed with 1009, the others served on.
    big, _ = connect("subscribe=none")
    big.settimeout(10)
    code = None
    try:
        big.send("x" * (10 * 1024 * 1024))
        while True:
            opcode, data = big.recv_data(control_frame=True)
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                code = int.from_bytes(data[:2], "big") if len(data) >= 2 else None
                break
    except (websocket.WebSocketException, OSError) as error:
        code = code or str(error)[:100]
    result["bigFrameClose"] = code
    # A message over the limit in small frames (20 KiB in 4 KiB continuation frames): closed with 1009.
    fragmented, _ = connect("subscribe=none")
    fragmented.settimeout(10)
    code = None
    try:
        chunk = "y" * 4096
        fragmented.send_frame(websocket.ABNF.create_frame(chunk, websocket.ABNF.OPCODE_TEXT, fin=0))
        for index in range(4):
            fragmented.send_frame(websocket.ABNF.create_frame(chunk, websocket.ABNF.OPCODE_CONT, fin=1 if index == 3 else 0))
        while code is None:
            opcode, data = fragmented.recv_data(control_frame=True)
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                code = int.from_bytes(data[:2], "big") if len(data) >= 2 else 0
    except (websocket.WebSocketException, OSError) as error:
        code = code or str(error)[:100]
    result["fragmentedClose"] = code
    result["readerServedOn"] = any("updates" in m for m in collect(reader, 3))
    print(json.dumps(result))

elif scenario == "kept":
    # Issue 27: a stream client subscribed to one path, for `seconds`, while the test reloads
    # headingd: is it still connected, does it still get only its path, and the longest gap.
    ws, _ = connect("subscribe=none")
    ws.send(json.dumps({"context": "vessels.self", "subscribe": [{"path": "navigation.headingTrue", "period": 100}]}))
    paths, gaps, closed = set(), [], None
    last = None
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ws.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            message = json.loads(ws.recv())
        except websocket.WebSocketTimeoutException:
            break
        except (websocket.WebSocketException, OSError) as error:
            closed = str(error)[:100]
            break
        if "updates" in message:
            now = time.monotonic()
            if last is not None:
                gaps.append(now - last)
            last = now
            paths.update(path for path, _, _ in values(message))
    print(json.dumps({"closed": closed, "paths": sorted(paths), "deltas": len(gaps) + 1, "longestGap": max(gaps) if gaps else None}))

elif scenario == "slowloris":
    # Issue 27: hundreds of connections trickling a request head (a header line a second) and
    # idle connections that never send a byte, opened again as they are closed, for `seconds`;
    # throughout, a well-behaved client's discovery request every 0.25 s and a stream client.
    import threading
    reader, _ = connect()
    stop = threading.Event()
    counts = {"slowOpened": 0, "idleOpened": 0, "closedByServer": 0}

    def attacker(kind, total):
        sockets = []
        while not stop.is_set():
            while len(sockets) < total and not stop.is_set():
                try:
                    s = socket.create_connection(("127.0.0.1", port), timeout=2)
                    if kind == "slow":
                        s.send(b"GET /signalk HTTP/1.1\r\nHost: x\r\n")
                    sockets.append(s)
                    counts[kind + "Opened"] += 1
                except OSError:
                    time.sleep(0.01)
            alive = []
            for s in sockets:
                try:
                    if kind == "slow":
                        s.send(b"X-Trickle: 1\r\n")
                    s.setblocking(False)
                    try:
                        if s.recv(1) == b"":
                            raise OSError("closed")
                    except BlockingIOError:
                        pass
                    s.setblocking(True)
                    alive.append(s)
                except OSError:
                    counts["closedByServer"] += 1
                    s.close()
            sockets = alive
            stop.wait(1)
        for s in sockets:
            s.close()

    threads = [threading.Thread(target=attacker, args=("slow", 300)), threading.Thread(target=attacker, args=("idle", 100))]
    for thread in threads:
        thread.start()
    latencies, failures = [], 0
    deltas = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.monotonic()
        try:
            requests.get(f"{base}/signalk", timeout=2).json()
            latencies.append(time.monotonic() - started)
        except (requests.RequestException, ValueError):
            failures += 1
        deltas += sum(1 for m in collect(reader, 0.25) if "updates" in m)
    stop.set()
    for thread in threads:
        thread.join()
    print(json.dumps(dict(counts, goodRequests=len(latencies), goodFailures=failures,
                          slowestGood=max(latencies) if latencies else None, streamDeltas=deltas)))

else:
    fail(f"unknown scenario {scenario}")
