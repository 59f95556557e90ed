"""The built docs site served on 127.0.0.1, and headless Chromium driven over the DevTools protocol: the part that
tools/check_docs.py and tools/screenshot_docs.py share.

    with serve(site) as base, Browser() as b:
        load = b.open(base + 'bins.html')     # what went wrong while the page loaded: exceptions, console errors, ...
        b.evaluate('document.title')
        b.screenshot(Path('bins.png'))        # the whole page (up to MAX_SHOT_PX high)

Why this way:
- One browser for all the pages, driven over `--remote-debugging-pipe` (the DevTools protocol as NUL-separated JSON
  on file descriptors 3 and 4): a page costs a navigation, not a browser start, and the protocol reports what a
  screenshot cannot show: uncaught exceptions, console errors, failed loads, and every request the page makes. It
  needs nothing beyond Debian's `chromium` and the standard library (Playwright could drive the same binary, but it
  would be a dependency for two scripts).
- The browser has no internet: every host name resolves to nothing (`--host-resolver-rules`), so a page that needs
  a CDN fails here the same way with or without a network, and Chromium's own background traffic is switched off.
- The site is served from 127.0.0.1 on a free port, so links, fetch() and search work as on a web server.
"""
import base64, contextlib, fcntl, functools, http.server, json, os, shutil, subprocess, sys, tempfile, threading, time
from pathlib import Path

FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
         '--disable-component-update', '--disable-sync', '--disable-quic', '--disable-dev-shm-usage',
         '--hide-scrollbars', '--disable-extensions', '--mute-audio', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1']
ON_3_AND_4 = 'import os, sys; os.dup2(int(sys.argv[1]), 3); os.dup2(int(sys.argv[2]), 4); os.execv(sys.argv[3], sys.argv[3:])'
MAX_SHOT_PX = 50000  # the tallest screenshot (a 1400 px wide page of 50000 px is a 280 MB bitmap while it is drawn)


def chromium() -> str:
    "The Chromium binary, or a one-line error saying how to install it."
    for name in ('chromium', 'chromium-browser', 'google-chrome'):
        if shutil.which(name): return shutil.which(name)
    raise RuntimeError('no chromium on PATH: install it (apt-get install -y chromium)')


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    "A static file server that does not log each request."
    def log_message(self, *args): pass


@contextlib.contextmanager
def serve(site: Path, handler=QuietHandler):
    "Serve the folder `site` on 127.0.0.1 (a free port) in a thread; yields the base URL, ending in /."
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(handler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try: yield f'http://127.0.0.1:{server.server_port}/'
    finally: server.shutdown(); server.server_close()


def html_pages(site: Path) -> list[str]:
    "Every page of the site: its .html files as paths relative to `site`, in sorted order (site_libs left out)."
    return sorted(p.relative_to(site).as_posix() for p in site.rglob('*.html') if 'site_libs' not in p.parts)


def shot_name(page: str, start: str = '') -> str:
    "The PNG name for a page of the site: analysis/tab1.html -> analysis__tab1.png (`start`: an id it begins at)."
    return page.removesuffix('.html').replace('/', '__') + (f'__{start}' if start else '') + '.png'


def _high_fd(fd):
    "A copy of `fd` numbered 10 or more, closed on exec unless passed on; the original is closed."
    new = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return new


class Browser:
    "Headless Chromium with one tab, driven over the DevTools protocol on a pipe. Use as a context manager."
    closed = False  # set when Chromium has closed its end of the pipe (exited)
    session = None  # the tab's DevTools session, once attached

    def __init__(self, width: int = 1400, height: int = 2000, timeout_s: float = 30):
        self.width, self.height, self.timeout_s = width, height, timeout_s
        self.profile = tempfile.TemporaryDirectory(prefix='docs-chromium-')
        to_r, to_w = map(_high_fd, os.pipe())        # commands: we write, Chromium reads on fd 3
        from_r, from_w = map(_high_fd, os.pipe())    # replies and events: Chromium writes on fd 4
        cmd = [chromium(), *FLAGS, '--remote-debugging-pipe', f'--user-data-dir={self.profile.name}',
               f'--window-size={width},{height}', 'about:blank']
        # a small Python puts the pipe ends on 3 and 4, then becomes Chromium (preexec_fn is unsafe beside the server
        # thread, and dash cannot redirect descriptors above 9)
        self.proc = subprocess.Popen([sys.executable, '-c', ON_3_AND_4, str(to_r), str(from_w), *cmd], pass_fds=(to_r, from_w),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_r); os.close(from_w)
        self.out = os.fdopen(to_w, 'wb', buffering=0)
        self.next_id, self.replies, self.events, self.cv = 0, {}, [], threading.Condition()
        threading.Thread(target=self._read, args=(from_r,), daemon=True).start()
        target = self.call('Target.createTarget', url='about:blank')['targetId']
        self.session = self.call('Target.attachToTarget', targetId=target, flatten=True)['sessionId']
        for domain in ('Page', 'Runtime', 'Log', 'Network'): self.call(f'{domain}.enable')
        self.call('Emulation.setDeviceMetricsOverride', width=width, height=height, deviceScaleFactor=1, mobile=False)

    def _read(self, fd):
        "Sort what Chromium writes into replies (by id) and events, until the pipe closes."
        buf = b''
        with os.fdopen(fd, 'rb', buffering=0) as f:
            while chunk := f.read(1 << 16):
                *msgs, buf = (buf + chunk).split(b'\0')
                with self.cv:
                    for m in map(json.loads, msgs):
                        if 'id' in m: self.replies[m['id']] = m
                        else: self.events.append(m)
                    self.cv.notify_all()
        with self.cv: self.closed = True; self.cv.notify_all()

    def call(self, method: str, to_tab: bool = True, **params):
        "Send one command (to the tab once attached, unless `to_tab` is False) and return its result, or raise."
        with self.cv:
            self.next_id += 1
            i = self.next_id
        msg = {'id': i, 'method': method, 'params': params}
        if to_tab and self.session: msg['sessionId'] = self.session
        self.out.write(json.dumps(msg).encode() + b'\0')
        with self.cv:
            if not self.cv.wait_for(lambda: i in self.replies or self.closed, self.timeout_s):
                raise RuntimeError(f'chromium did not answer {method} in {self.timeout_s:.0f}s')
            if i not in self.replies: raise RuntimeError(f'chromium exited during {method}')
            reply = self.replies.pop(i)
        if 'error' in reply: raise RuntimeError(f"{method}: {reply['error'].get('message')}")
        return reply.get('result', {})

    def open(self, url: str, quiet_s: float = 0.15) -> list[dict]:
        """Load `url`, wait for its load event and then until no request has been in flight for `quiet_s` (fonts,
        fetch() after load); return the protocol events of this load (Runtime.exceptionThrown, Log.entryAdded, ...)."""
        with self.cv: self.events = []
        nav = self.call('Page.navigate', url=url)
        if nav.get('errorText'): raise RuntimeError(f"could not load {url}: {nav['errorText']}")
        deadline, inflight, seen, quiet_since = time.monotonic() + self.timeout_s, set(), 0, None
        loaded = False
        with self.cv:
            while True:
                for e in self.events[seen:]:
                    m, p = e.get('method'), e.get('params', {})
                    if m == 'Page.loadEventFired': loaded = True
                    elif m == 'Network.requestWillBeSent': inflight.add(p['requestId'])
                    elif m in ('Network.loadingFinished', 'Network.loadingFailed'): inflight.discard(p['requestId'])
                seen = len(self.events)
                now = time.monotonic()
                if loaded and not inflight:
                    quiet_since = quiet_since or now
                    if now - quiet_since >= quiet_s: return list(self.events)
                else: quiet_since = None
                if now > deadline or self.closed:
                    raise RuntimeError(f'{url} did not finish loading in {self.timeout_s:.0f}s')
                self.cv.wait(0.05)

    def evaluate(self, js: str):
        "The value of a JavaScript expression in the page (a JSON-able value; a promise is awaited)."
        r = self.call('Runtime.evaluate', expression=js, returnByValue=True, awaitPromise=True)
        if 'exceptionDetails' in r: raise RuntimeError(f"script failed: {r['exceptionDetails'].get('text')}")
        return r['result'].get('value')

    def screenshot(self, png: Path, y: float = 0, height: float | None = None):
        "Save the page as a PNG from `y` down: `height` px, or to its end (at most MAX_SHOT_PX)."
        page_h = self.call('Page.getLayoutMetrics')['cssContentSize']['height']
        h = min(height or page_h - y, page_h - y, MAX_SHOT_PX) if page_h > y else self.height
        clip = {'x': 0, 'y': y, 'width': self.width, 'height': max(h, 1), 'scale': 1}
        # optimizeForSpeed: a faster PNG encoder (still lossless, files about 25% larger); on a long page it halves the time
        data = self.call('Page.captureScreenshot', format='png', clip=clip, captureBeyondViewport=True, optimizeForSpeed=True)['data']
        png.write_bytes(base64.b64decode(data))

    def close(self):
        "Close the browser (and its temporary profile)."
        with contextlib.suppress(Exception): self.call('Browser.close', to_tab=False)
        with contextlib.suppress(Exception): self.out.close()
        try: self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired: self.proc.kill(); self.proc.wait()
        self.profile.cleanup()

    def __enter__(self): return self
    def __exit__(self, *exc): self.close()
