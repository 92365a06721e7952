// headingd
// SPDX-License-Identifier: Apache-2.0

/// The status page: one HTML document, its style sheet and its script, all served by headingd
/// itself (no external script, font or CDN: a boat is offline), under ``contentSecurityPolicy``.
/// The script reads `/status/events` (server-sent events, a ``StatusReport`` each) and shows the
/// heading on a compass rose (true and magnetic, turning the short way across north), a STALE or
/// NO HEADING state with how long, each source, the active faults, the outputs, variation and its
/// origin, version and uptime; a banner when its own connection drops. Text stands in for the rose
/// (its label and the heading in figures), so a screen reader reads the same.
enum StatusPage {
    /// Allows nothing but this origin's own script, style sheet and event stream.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The document at `/`.
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>headingd</title>
        <link rel="icon" href="/favicon.svg" type="image/svg+xml">
        <link rel="stylesheet" href="/status.css">
        <script src="/status.js" defer></script>
        </head>
        <body>
        <div id="banner" class="banner" role="alert" hidden>Connection to headingd lost: retrying…</div>
        <header><h1>headingd</h1><span id="host"></span></header>
        <main>
        <section class="compass" aria-labelledby="heading-title">
        <h2 id="heading-title" class="visually-hidden">Heading</h2>
        <svg id="rose" viewBox="-110 -110 220 220" role="img" aria-label="No heading yet">
        <circle r="104" class="ring"/>
        <g id="card">
        <g class="ticks" id="ticks"></g>
        <text y="-80" class="cardinal north">N</text><text x="80" class="cardinal">E</text>
        <text y="80" class="cardinal">S</text><text x="-80" class="cardinal">W</text>
        </g>
        <path d="M0,-100 L7,-84 L-7,-84 Z" class="lubber"/>
        <g id="magnetic-needle"><path d="M0,-70 L4,-56 L-4,-56 Z" class="magnetic"/></g>
        </svg>
        <div class="readout">
        <div id="state" class="state" aria-live="polite">connecting…</div>
        <div><span class="big" id="true">—</span> <span class="unit">°T</span></div>
        <div><span id="magnetic">—</span> <span class="unit magnetic-unit">°M</span> <span class="small">(the orange mark: magnetic north's offset)</span></div>
        <div class="small">variation <span id="variation">—</span></div>
        <div class="small">from <span id="source">—</span></div>
        </div>
        </section>
        <section aria-labelledby="sources-title">
        <h2 id="sources-title">Sources</h2>
        <table><thead><tr><th>source</th><th>state</th><th>for</th><th>/s</th><th>errors</th><th>calibration / deviation</th><th>last fault</th></tr></thead>
        <tbody id="sources"></tbody></table>
        </section>
        <section aria-labelledby="faults-title">
        <h2 id="faults-title">Active faults</h2>
        <ul id="faults"><li>none</li></ul>
        </section>
        <section aria-labelledby="outputs-title">
        <h2 id="outputs-title">Outputs</h2>
        <table><thead><tr><th>output</th><th>clients</th><th>sent</th><th>dropped</th></tr></thead>
        <tbody id="outputs"></tbody></table>
        </section>
        </main>
        <footer>headingd <span id="version"></span> · up <span id="uptime"></span></footer>
        </body>
        </html>

        """#

    /// The icon at `/favicon.svg`: a compass needle.
    static let favicon = #"""
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="-10 -10 20 20"><circle r="9" fill="none" stroke="#444" stroke-width="1.5"/><path d="M0,-8 L3,0 L-3,0 Z" fill="#c5221f"/><path d="M0,8 L3,0 L-3,0 Z" fill="#444"/></svg>

        """#

    /// The style sheet at `/status.css`.
    static let css = #"""
        :root { --fg: #111; --bg: #fafafa; --muted: #666; --ok: #137333; --warn: #b06000; --bad: #c5221f; --line: #ddd; }
        @media (prefers-color-scheme: dark) { :root { --fg: #eee; --bg: #121212; --muted: #999; --line: #333; --ok: #81c995; --warn: #fdd663; --bad: #f28b82; } }
        body { font: 16px/1.4 system-ui, sans-serif; color: var(--fg); background: var(--bg); margin: 0 auto; max-width: 60rem; padding: 0 .75rem 2rem; }
        header { display: flex; align-items: baseline; gap: 1rem; }
        h1 { font-size: 1.3rem; margin: .6rem 0; }
        h2 { font-size: 1.05rem; margin: 1.2rem 0 .4rem; }
        .compass { display: flex; flex-wrap: wrap; align-items: center; gap: 1.5rem; }
        #rose { width: min(70vw, 18rem); height: auto; }
        .ring { fill: none; stroke: var(--fg); stroke-width: 2; }
        #card, #magnetic-needle { transform-box: view-box; transform-origin: 0 0; transition: transform .4s ease-out; }
        .ticks line { stroke: var(--fg); stroke-width: 1; }
        .ticks line.major { stroke-width: 2.5; }
        .cardinal { fill: var(--fg); font-size: 18px; font-weight: 700; text-anchor: middle; dominant-baseline: central; }
        .north { fill: var(--bad); }
        .lubber { fill: var(--fg); }
        .magnetic { fill: var(--warn); }
        .readout .big { font-size: 3rem; font-weight: 700; font-variant-numeric: tabular-nums; }
        .unit, .small { color: var(--muted); }
        .state { display: inline-block; font-weight: 700; padding: .15rem .5rem; border-radius: .3rem; color: #fff; background: var(--muted); }
        .state.ok { background: var(--ok); }
        .state.stale, .state.none { background: var(--bad); font-size: 1.4rem; }
        .stale .big, body.stale .big { color: var(--muted); text-decoration: line-through; }
        table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
        th, td { text-align: left; padding: .25rem .4rem; border-bottom: 1px solid var(--line); vertical-align: top; }
        td.healthy { color: var(--ok); font-weight: 600; } td.stale, td.faulted { color: var(--bad); font-weight: 600; } td.waiting { color: var(--muted); }
        tr.steering td:first-child::before { content: "▶ "; color: var(--ok); }
        td.name, li { overflow-wrap: anywhere; }
        .magnetic-unit { color: var(--warn); }
        .banner { position: sticky; top: 0; background: var(--bad); color: #fff; padding: .5rem .75rem; font-weight: 700; }
        footer { margin-top: 2rem; color: var(--muted); font-size: .9rem; }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }

        """#

    /// The script at `/status.js`.
    static let javaScript = #"""
        "use strict";
        (function () {
          const $ = (id) => document.getElementById(id);
          const ticks = $("ticks");
          for (let d = 0; d < 360; d += 10) {
            const line = document.createElementNS("http://www.w3.org/2000/svg", "line");
            const major = d % 30 === 0, a = d * Math.PI / 180, r1 = major ? 90 : 95;
            line.setAttribute("x1", (Math.sin(a) * r1).toFixed(1)); line.setAttribute("y1", (-Math.cos(a) * r1).toFixed(1));
            line.setAttribute("x2", (Math.sin(a) * 103).toFixed(1)); line.setAttribute("y2", (-Math.cos(a) * 103).toFixed(1));
            if (major) line.setAttribute("class", "major");
            ticks.appendChild(line);
          }
          // The card turns so that the heading is under the lubber line: by minus the heading,
          // always the short way (350° → 10° turns 20°, not 340°).
          let cardAngle = null, needleAngle = null;
          function turn(current, target) {
            if (current === null) return target;
            return current + ((((target - current) % 360) + 540) % 360 - 180);
          }
          const fmt = (v, digits) => (typeof v === "number" && isFinite(v)) ? v.toFixed(digits) : "—";
          function duration(s) {
            if (!isFinite(s)) return "—";
            s = Math.max(0, Math.floor(s));
            if (s < 60) return s + " s";
            if (s < 3600) return Math.floor(s / 60) + " min " + (s % 60) + " s";
            if (s < 86400) return Math.floor(s / 3600) + " h " + Math.floor((s % 3600) / 60) + " min";
            return Math.floor(s / 86400) + " d " + Math.floor((s % 86400) / 3600) + " h";
          }
          function cell(row, text, cls) {
            const td = document.createElement("td");
            td.textContent = text;
            if (cls) td.className = cls;
            row.appendChild(td);
          }
          function show(r) {
            const h = r.heading;
            const state = $("state");
            state.className = "state " + h.state;
            document.body.className = h.state;
            if (h.state === "ok") state.textContent = "OK";
            else if (h.state === "stale") state.textContent = "STALE for " + duration(h.ageSeconds);
            else state.textContent = "NO HEADING for " + duration(h.ageSeconds);
            $("true").textContent = fmt(h.trueHeading, 1);
            $("magnetic").textContent = fmt(h.magneticHeading, 1);
            $("variation").textContent = typeof h.magneticVariation === "number"
              ? fmt(Math.abs(h.magneticVariation), 1) + "° " + (h.magneticVariation < 0 ? "W" : "E") + (h.variationOrigin ? " (" + h.variationOrigin + ")" : "")
              : "unknown";
            $("source").textContent = h.source || "—";
            const shown = typeof h.trueHeading === "number" ? h.trueHeading : h.magneticHeading;
            if (typeof shown === "number") {
              cardAngle = turn(cardAngle, -shown);
              $("card").style.transform = "rotate(" + cardAngle + "deg)";
            }
            if (typeof h.trueHeading === "number" && typeof h.magneticHeading === "number") {
              // The magnetic heading's mark sits where magnetic north lies on the true card.
              needleAngle = turn(needleAngle, h.trueHeading - h.magneticHeading);
              $("magnetic-needle").style.transform = "rotate(" + needleAngle + "deg)";
            }
            const label = h.state === "none" ? "No heading for " + duration(h.ageSeconds)
              : "Heading " + fmt(h.trueHeading, 1) + " degrees true, " + fmt(h.magneticHeading, 1) + " degrees magnetic"
                + (h.state === "stale" ? ", stale for " + duration(h.ageSeconds) : "");
            $("rose").setAttribute("aria-label", label);
            const sources = $("sources");
            sources.replaceChildren();
            for (const s of r.sources) {
              const row = document.createElement("tr");
              if (s.steering) row.className = "steering";
              cell(row, s.name, "name");
              cell(row, s.state + (s.steering ? " (steering)" : ""), s.state);
              cell(row, duration(s.secondsInState));
              cell(row, fmt(s.headingsPerSecond, 0));
              cell(row, String(s.errors));
              cell(row, s.deviation ? "deviation " + s.deviation : !s.calibration ? "—" : s.calibration.state !== "calibrated" ? "none"
                : s.calibration.mode + ", about " + fmt(s.calibration.headingErrorDegrees, 1) + "°, " + duration(s.calibration.ageSeconds) + " old" + (s.calibration.refining ? ", refining" : ""));
              cell(row, s.lastFault ? s.lastFault.code + ": " + s.lastFault.reason : "—");
              sources.appendChild(row);
            }
            const faults = $("faults");
            faults.replaceChildren();
            for (const f of r.faults) {
              const li = document.createElement("li");
              li.textContent = f.source + ": " + f.code + ": " + f.reason + " (for " + duration(r.time - f.since) + ")";
              faults.appendChild(li);
            }
            if (r.faults.length === 0) { const li = document.createElement("li"); li.textContent = "none"; faults.appendChild(li); }
            const outputs = $("outputs");
            outputs.replaceChildren();
            for (const o of r.outputs) {
              const row = document.createElement("tr");
              cell(row, o.state ? o.name + " (" + o.state + ")" : o.name); cell(row, String(o.clients)); cell(row, String(o.messages)); cell(row, String(o.messagesDropped));
              outputs.appendChild(row);
            }
            if (r.outputs.length === 0) { const row = document.createElement("tr"); cell(row, "none"); outputs.appendChild(row); }
            $("version").textContent = r.version;
            $("uptime").textContent = duration(r.uptimeSeconds);
            $("host").textContent = location.host;
          }
          // The banner: on an error of the stream, or when nothing came for three seconds (a
          // connection that hangs says nothing).
          let lastMessage = 0;
          const banner = $("banner");
          function lost(yes) { banner.hidden = !yes; }
          const events = new EventSource("/status/events");
          events.onmessage = (e) => {
            lastMessage = Date.now();
            lost(false);
            try { show(JSON.parse(e.data)); } catch (error) { console.warn("headingd: unreadable status", error); }
          };
          events.onerror = () => lost(true);
          setInterval(() => { if (Date.now() - lastMessage > 3000) lost(true); }, 1000);
        })();

        """#
}
