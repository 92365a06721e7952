#!/usr/bin/env python3
# headingd — drives Debian's Chromium, headless, through the DevTools protocol (websocket-client)
# over headingd's status page, and prints what it saw as one JSON object.
# SPDX-License-Identifier: Apache-2.0
#
# Usage: status-page-chromium.py URL HEADINGD_PID SCREENSHOT_DIR SECONDS
#   Loads URL, then every 100 ms reads what the page shows beside what /status.json says, for
#   SECONDS; then sends headingd SIGTERM and waits for the page's banner. Screenshots: ok.png,
#   stale.png (the first time the page shows STALE), banner.png. Everything the test asserts is in
#   the output: console errors and exceptions (a CSP violation is one), every request's URL, the
#   samples, and when the banner showed.
import json, os, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.request
import websocket

url, pid, shots, seconds = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
origin = url.rstrip("/")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


profile = tempfile.mkdtemp(prefix="headingd-chromium-")
port = free_port()
browser = subprocess.Popen(
    ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
     "--disable-extensions", "--disable-background-networking", "--disable-component-update", "--disable-sync",
     "--user-data-dir=" + profile, "--remote-debugging-port=%d" % port, "--window-size=420,900", "about:blank"],
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
result = {"consoleErrors": [], "requests": [], "samples": [], "banner": None, "screenshots": []}
try:
    deadline = time.time() + 30
    target = None
    while time.time() < deadline and target is None:
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/json" % port, timeout=1) as r:
                pages = [t for t in json.load(r) if t.get("type") == "page"]
                target = pages[0]["webSocketDebuggerUrl"] if pages else None
        except OSError:
            time.sleep(0.1)
    if target is None:
        raise SystemExit("chromium's DevTools did not answer in 30 s")
    ws = websocket.create_connection(target, timeout=10, suppress_origin=True)
    counter = [0]

    def note(message):
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            result["consoleErrors"].append(" ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            result["consoleErrors"].append(params["exceptionDetails"].get("text", "") + " " + str(params["exceptionDetails"].get("exception", {}).get("description", "")))
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            result["consoleErrors"].append(params["entry"].get("text", ""))
        elif method == "Network.requestWillBeSent":
            result["requests"].append(params["request"]["url"])

    def call(method, **params):
        counter[0] += 1
        ident = counter[0]
        ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(ws.recv())
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError("%s: %s" % (method, message["error"]))
                return message.get("result", {})
            note(message)

    def evaluate(expression):
        return call("Runtime.evaluate", expression=expression, returnByValue=True).get("result", {}).get("value")

    def screenshot(name):
        data = call("Page.captureScreenshot", format="png", captureBeyondViewport=True)["data"]
        import base64
        path = os.path.join(shots, name)
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        result["screenshots"].append(path)

    for domain in ("Runtime", "Log", "Network", "Page"):
        call(domain + ".enable")
    call("Page.navigate", url=url)
    shown = "(function(){const t=(id)=>document.getElementById(id).textContent;" \
        "return {state:t('state'),true:t('true'),magnetic:t('magnetic'),banner:!document.getElementById('banner').hidden," \
        "label:document.getElementById('rose').getAttribute('aria-label'),sources:document.getElementById('sources').rows.length," \
        "steering:document.querySelectorAll('#sources tr.steering').length,faults:t('faults'),outputs:t('outputs')};})()"
    start = time.time()
    took_ok = took_stale = False
    while time.time() - start < seconds:
        page = evaluate(shown)
        with urllib.request.urlopen(origin + "/status.json", timeout=2) as r:
            report = json.load(r)
        result["samples"].append({"t": round(time.time() - start, 3), "page": page, "heading": report["heading"],
                                  "staleAfter": report["staleAfterSeconds"]})
        if page and page["state"] == "OK" and not took_ok and time.time() - start > 1.5:
            screenshot("ok.png")
            took_ok = True
        if page and page["state"].startswith("STALE") and not took_stale:
            screenshot("stale.png")
            took_stale = True
        # Drain the events that came meanwhile.
        ws.settimeout(0.1)
        try:
            while True:
                note(json.loads(ws.recv()))
        except websocket.WebSocketTimeoutException:
            pass
        ws.settimeout(10)
    os.kill(pid, signal.SIGTERM)
    stopped = time.time()
    while time.time() - stopped < 10:
        page = evaluate(shown)
        if page and page["banner"]:
            result["banner"] = round(time.time() - stopped, 3)
            screenshot("banner.png")
            break
        time.sleep(0.1)
    ws.close()
finally:
    browser.terminate()
    try:
        browser.wait(10)
    except subprocess.TimeoutExpired:
        browser.kill()
    shutil.rmtree(profile, ignore_errors=True)
print(json.dumps(result))
