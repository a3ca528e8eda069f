#!/usr/bin/env python3
"""The HTML report rendered by headless Chromium.

usage: check_html_report.py HTML_REPORT_WRITER WORK_DIR

Writes the sweep sample's report with HTML_REPORT_WRITER, then checks that
  - the file names no URL (no "http://" or "https://" anywhere in its text);
  - Chromium renders it and the rendered DOM holds the expected charts, each an
    <svg class="chart ..."> with an id and a <title>;
  - rendering it requests nothing from the network: Chromium is pointed at a proxy
    this script listens on (loopback included), and the proxy must see no request.
    A control page that does fetch an image must reach that proxy, so the check
    cannot pass merely because the proxy was never used;
  - a screenshot (WORK_DIR/report.png, 1200x2000) can be taken, for people to look at.
Chromium missing is a failure, not a skip: scripts/install-deps.sh installs it.
"""

import html.parser
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

# Charts the sweep sample must render (tests/unit/report/sweep_result.h): 16 workloads
# with samples, 15 with paired rounds (huge_graph's candidate crashed), one sweep over
# threads and one over scale.
EXPECTED_CHARTS = {
    "box-plot": 16,
    "ratio-over-rounds": 15,
    "throughput-vs-threads": 1,
    "time-vs-scale": 1,
}
EXPECTED_IDS = ["box-large_graph", "ratio-large_graph", "throughput-dense", "scale-growth",
                "box-dense-threads-4-allocator-mimalloc"]

EXPECTED_INTERVALS = 2

CHROMIUM_TIMEOUT_S = 90

# Chromium's own services call these whatever the flags say (the component updater's
# clock check and update ping, account sign-in). They come from the browser process,
# not from the page: the page names no URL at all (checked on its text first) and its
# Content-Security-Policy forbids every fetch, so only requests to other hosts count.
BROWSER_SERVICE_HOSTS = ("clients2.google.com", "update.googleapis.com", "accounts.google.com")


class Failed(Exception):
    pass


class RecordingProxy:
    """A TCP listener standing in for an HTTP proxy: it records the first line of
    every connection (e.g. "GET http://host/x HTTP/1.1" or "CONNECT host:443") and
    closes it, so any fetch fails fast and is on record. A request is read until its
    first line ends or the connection closes, each connection on a thread of its own,
    so a slow one neither delays the next nor is taken for an empty one. A connection
    closed before it sent a byte (chromium opens spare ones to the proxy and closes
    them at exit) requested nothing: it is counted apart, in `empty`."""

    READ_TIMEOUT_S = 30

    def __init__(self):
        self.requests = []
        self.empty = 0
        self._open = 0  # connections accepted and not yet recorded
        self._lock = threading.Lock()
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(16)
        self.port = self._socket.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return
            with self._lock:
                self._open += 1
            threading.Thread(target=self._record, args=(connection,), daemon=True).start()

    def _record(self, connection):
        data = b""
        with connection:
            connection.settimeout(self.READ_TIMEOUT_S)
            try:
                while b"\r\n" not in data:
                    chunk = connection.recv(4096)
                    if not chunk:
                        break
                    data += chunk
            except OSError:
                pass
        line = data.split(b"\r\n", 1)[0].decode("latin-1")
        with self._lock:
            if line:
                self.requests.append(line)
            elif data:
                self.requests.append("(a connection that sent %d bytes and no full line)" % len(data))
            else:
                self.empty += 1
            self._open -= 1

    def settle(self):
        """Once chromium has exited, waits until every connection it made is recorded:
        none waiting to be accepted, none being read."""
        deadline = time.monotonic() + self.READ_TIMEOUT_S + 5
        quiet_checks = 0
        while quiet_checks < 2 and time.monotonic() < deadline:
            pending, _, _ = select.select([self._socket], [], [], 0)
            with self._lock:
                busy = self._open
            quiet_checks = quiet_checks + 1 if not pending and not busy else 0
            time.sleep(0.02)

    def taken(self):
        self.settle()
        with self._lock:
            requests, self.requests = self.requests, []
        return requests

    def taken_by_page(self):
        return [r for r in self.taken() if not any(host in r for host in BROWSER_SERVICE_HOSTS)]

    def close(self):
        self._socket.close()


def find_chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    raise Failed("chromium is not installed; the HTML report's test needs Debian's chromium "
                 "package: run scripts/install-deps.sh (or apt-get install -y chromium)")


def run_chromium(chromium, proxy, url, extra):
    profile = tempfile.mkdtemp(prefix="pe-html-chromium-")
    argv = [
        chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--disable-default-apps", "--disable-extensions",
        "--user-data-dir=" + profile,
        "--proxy-server=http://127.0.0.1:%d" % proxy.port, "--proxy-bypass-list=<-loopback>",
        "--enable-logging=stderr", "--v=1",
    ] + extra + [url]
    try:
        completed = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   timeout=CHROMIUM_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise Failed("chromium did not finish within %d s: %s" % (CHROMIUM_TIMEOUT_S, argv))
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    if completed.returncode != 0:
        raise Failed("chromium exited with %d: %s\n%s" % (
            completed.returncode, argv, completed.stderr.decode(errors="replace")[-3000:]))
    return completed.stdout.decode(errors="replace"), completed.stderr.decode(errors="replace")


class ChartCollector(html.parser.HTMLParser):
    """Every <svg> with its classes, its id and whether its first child is a <title>."""

    def __init__(self):
        super().__init__()
        self.charts = []
        self._pending = None

    def handle_starttag(self, tag, attrs):
        if tag == "svg":
            attributes = dict(attrs)
            self._pending = {"classes": (attributes.get("class") or "").split(),
                             "id": attributes.get("id") or "", "title": False}
            self.charts.append(self._pending)
        elif self._pending is not None:
            self._pending["title"] = tag == "title"
            self._pending = None


def url_lines(log):
    return [line for line in log.splitlines()
            if ("http://" in line or "https://" in line) and "127.0.0.1" not in line
            and not any(host in line for host in BROWSER_SERVICE_HOSTS)]


def check_file_text(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for scheme in ("http://", "https://"):
        if scheme in text:
            at = text.index(scheme)
            raise Failed("%s names a URL: ...%s..." % (path, text[max(0, at - 80):at + 80]))
    return text


def check_charts(dom):
    collector = ChartCollector()
    collector.feed(dom)
    counts = {}
    for chart in collector.charts:
        if "chart" not in chart["classes"]:
            continue
        if not chart["id"]:
            raise Failed("a chart has no id: classes %s" % chart["classes"])
        if not chart["title"]:
            raise Failed("chart %s does not start with a <title>" % chart["id"])
        for kind in chart["classes"]:
            if kind != "chart":
                counts[kind] = counts.get(kind, 0) + 1
    if counts != EXPECTED_CHARTS:
        raise Failed("rendered charts %s, expected %s" % (counts, EXPECTED_CHARTS))
    ids = {chart["id"] for chart in collector.charts}
    missing = [i for i in EXPECTED_IDS if i not in ids]
    if missing:
        raise Failed("rendered DOM lacks charts %s" % missing)
    if "RUN FAILED" not in dom:
        raise Failed("rendered DOM lacks the verdict")
    # html_report_writer gives two workloads a speed-up interval: each is drawn as a band.
    if dom.count('<rect class="interval"') != EXPECTED_INTERVALS:
        raise Failed("rendered DOM has %d interval bands, expected %d"
                     % (dom.count('<rect class="interval"'), EXPECTED_INTERVALS))
    if "candidate / baseline" in dom:
        raise Failed("the page mixes ratio conventions: it says 'candidate / baseline'")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    writer, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    report = os.path.join(work, "report.html")
    control = os.path.join(work, "control.html")
    screenshot = os.path.join(work, "report.png")
    for stale in (report, screenshot):
        if os.path.exists(stale):
            os.remove(stale)

    subprocess.run([writer, report], check=True, timeout=60)
    check_file_text(report)
    chromium = find_chromium()
    proxy = RecordingProxy()
    try:
        # The control: a page that fetches must reach the proxy, or the check below
        # proves nothing.
        with open(control, "w", encoding="utf-8") as f:
            f.write('<!DOCTYPE html><html><head><link rel="icon" href="data:,"></head>'
                    '<body><img src="http://perfengine-control.invalid/pixel.png"></body></html>\n')
        run_chromium(chromium, proxy, "file://" + control, ["--dump-dom"])
        if not any("perfengine-control.invalid" in r for r in proxy.taken()):
            raise Failed("the control page's fetch never reached the recording proxy; "
                         "the no-network check would prove nothing")

        dom, log = run_chromium(chromium, proxy, "file://" + report, ["--dump-dom"])
        check_charts(dom)
        requests = proxy.taken_by_page()
        if requests:
            raise Failed("rendering the report requested the network: %s" % requests)
        urls = url_lines(log)
        if urls:
            raise Failed("chromium's log names URLs while rendering the report:\n%s"
                         % "\n".join(urls[:20]))

        run_chromium(chromium, proxy, "file://" + report,
                     ["--screenshot=" + screenshot, "--window-size=1200,2000",
                      "--hide-scrollbars"])
        requests = proxy.taken_by_page()
        if requests:
            raise Failed("the screenshot run requested the network: %s" % requests)
        if not os.path.exists(screenshot) or os.path.getsize(screenshot) < 20000:
            raise Failed("no usable screenshot at %s" % screenshot)
    finally:
        proxy.close()
    print("ok: %s renders %s, fetches nothing; screenshot %s (chromium's connections to the "
          "proxy that sent nothing: %d)" % (report, EXPECTED_CHARTS, screenshot, proxy.empty))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failed as failure:
        print("FAIL: %s" % failure, file=sys.stderr)
        sys.exit(1)
