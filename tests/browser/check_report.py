#!/usr/bin/env python3
"""check_report.py REPORT.html SHOT.png — opens a report in headless Chromium
(Debian's `chromium`) and fails (exit 1, saying why) on any console error,
uncaught exception or failed load, and on a missing image: an <img> that did
not load, a <figure> without an image, an image that renders empty, an SVG
that draws nothing.  Writes a screenshot of the page (its first 12000 px) to
SHOT.png either way.

Chromium is driven through the DevTools protocol over a pipe
(--remote-debugging-pipe: JSON messages ending in NUL on fds 3 and 4), so
nothing but Python's standard library is needed and no port is opened."""
import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

TIMEOUT_S = 60
MAX_SHOT_PX = 12000

# What the page must show, evaluated once it has loaded.
CHECK_JS = r"""
(() => {
  const bad = [];
  const name = (f, i) => 'figure ' + (i + 1) + ' (' +
      ((f.querySelector('figcaption') || {}).textContent || '').trim().slice(0, 60) + ')';
  for (const img of document.images)
    if (!img.complete || img.naturalWidth === 0)
      bad.push('image not loaded: ' + (img.getAttribute('src') || '').slice(0, 80));
  const figs = [...document.querySelectorAll('figure')];
  figs.forEach((f, i) => {
    const g = f.querySelector('svg, img, object, canvas');
    if (!g) { bad.push(name(f, i) + ': no image'); return; }
    const r = g.getBoundingClientRect();
    if (r.width < 20 || r.height < 20)
      bad.push(name(f, i) + ': renders ' + r.width + 'x' + r.height + ' px');
    if (g.tagName.toLowerCase() === 'svg' &&
        g.querySelectorAll('rect, path, polyline, line, circle, polygon').length === 0)
      bad.push(name(f, i) + ': its SVG draws nothing');
  });
  return JSON.stringify({bad, figures: figs.length, images: document.images.length,
                         svgs: document.querySelectorAll('svg').length,
                         width: document.documentElement.scrollWidth,
                         height: document.documentElement.scrollHeight});
})()
"""


class Browser:
    def __init__(self, profile):
        exe = shutil.which("chromium") or shutil.which("chromium-browser")
        if not exe:
            sys.exit("check_report.py: chromium not found (Debian: apt-get install chromium)")
        to_r, self.to_w = os.pipe()      # our commands -> its fd 3
        self.from_r, from_w = os.pipe()  # its fd 4 -> our replies

        def fds():  # via fresh copies: dup2 onto itself would keep close-on-exec
            a, b = os.dup(to_r), os.dup(from_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        # As root Chromium needs --no-sandbox; the network flags keep it from
        # reaching for hosts this machine cannot see.
        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--user-data-dir=" + profile, "--remote-debugging-pipe",
             "--window-size=1200,900", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            preexec_fn=fds, close_fds=False)
        os.close(to_r)
        os.close(from_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.deadline = time.monotonic() + TIMEOUT_S

    def _read(self):
        left = self.deadline - time.monotonic()
        if left <= 0 or not select.select([self.from_r], [], [], left)[0]:
            raise TimeoutError("no answer from chromium within %d s" % TIMEOUT_S)
        chunk = os.read(self.from_r, 1 << 20)
        if not chunk:
            raise EOFError("chromium exited: " + self.proc.stderr.read().decode()[-2000:])
        self.buf += chunk

    def _message(self):
        while b"\0" not in self.buf:
            self._read()
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None):
        self.next_id += 1
        m = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            m["sessionId"] = session
        os.write(self.to_w, json.dumps(m).encode() + b"\0")
        while True:
            r = self._message()
            if r.get("id") == self.next_id:
                if "error" in r:
                    raise RuntimeError("%s: %s" % (method, r["error"]))
                return r["result"]
            self.events.append(r)

    def wait_for(self, method):
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self._message())

    def close(self):
        try:
            self.call("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_w)
        os.close(self.from_r)


def problems_in(events):
    """Console errors, exceptions and failed loads among the events."""
    out = []
    for e in events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append("console.%s: %s" % (p["type"], " ".join(
                str(a.get("value", a.get("description", ""))) for a in p.get("args", []))))
        elif m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            out.append("uncaught exception: %s" % d.get("exception", {}).get(
                "description", d.get("text", "")))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            en = p["entry"]
            out.append("console error: %s %s" % (en.get("text", ""), en.get("url", "")))
        elif m == "Network.loadingFailed" and not p.get("canceled"):
            out.append("load failed: %s" % p.get("errorText", ""))
    return out


def check(html, shot):
    profile = tempfile.mkdtemp(prefix="v10sim-chromium-")
    b = Browser(profile)
    try:
        target = b.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        s = b.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            b.call(domain + ".enable", session=s)
        b.call("Page.navigate", {"url": "file://" + os.path.abspath(html)}, session=s)
        b.wait_for("Page.loadEventFired")
        r = b.call("Runtime.evaluate", {"expression": CHECK_JS, "returnByValue": True},
                   session=s)
        page = json.loads(r["result"]["value"])
        h = min(page["height"], MAX_SHOT_PX)
        png = b.call("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": page["width"], "height": h, "scale": 1}},
            session=s)["data"]
        with open(shot, "wb") as f:
            f.write(base64.b64decode(png))
        bad = problems_in(b.events) + page["bad"]
    finally:
        b.close()
        shutil.rmtree(profile, ignore_errors=True)
    return bad, page


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check_report.py REPORT.html SHOT.png")
    bad, page = check(sys.argv[1], sys.argv[2])
    what = "%s: %d figures, %d inline SVGs, %d <img>; screenshot %s" % (
        sys.argv[1], page["figures"], page["svgs"], page["images"], sys.argv[2])
    if bad:
        print("check_report.py: %s\n  " % what + "\n  ".join(bad), file=sys.stderr)
        sys.exit(1)
    if page["figures"] == 0:
        print("check_report.py: %s: no figures at all" % what, file=sys.stderr)
        sys.exit(1)
    print("ok: " + what)


if __name__ == "__main__":
    main()
