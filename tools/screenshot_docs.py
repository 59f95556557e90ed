"""Screenshot pages of the built docs site with headless Chromium, to check the rendering by eye. Builds nothing.

    python tools/screenshot_docs.py                           # index, bins, forecast of _docs/ -> /tmp/docs_shots/
    python tools/screenshot_docs.py bins analysis/tab1 --dir /tmp/shots --height 6000
    python tools/screenshot_docs.py 'selective#cell-58'       # the page from the element with id cell-58 on

A page is a path in the built site, with or without .html. `#id` captures the page from that element on (the content
of <main> before it is removed before the capture): Chromium captures one window, at most about 16000 px high, so
this is how to see the end of a long page. Then look at the PNGs (e.g. the `view` of an editor tool, any viewer).

Needs `chromium` (apt-get install chromium). The pages load KaTeX from a CDN; with the Debian package `libjs-katex`
installed, the local server hands that out instead, so the maths render offline too. The site is served from
127.0.0.1 on a free port, so links and search work as on a web server.
"""
import argparse, functools, http.server, re, subprocess, sys, tempfile, threading
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

ROOT = Path(__file__).resolve().parents[1]
KATEX = Path('/usr/share/javascript/katex')
FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
         '--disable-component-update', '--disable-sync', '--disable-quic', '--disable-dev-shm-usage',
         '--hide-scrollbars', '--virtual-time-budget=5000']
# `?from=ID`: drop what comes before element ID, at each level up to <main>
FROM = """<script>addEventListener('DOMContentLoaded', () => {
  for (let e = document.getElementById(%r); e && e.tagName !== 'MAIN'; e = e.parentElement)
    while (e.previousElementSibling) e.previousElementSibling.remove(); });</script>"""


class Handler(http.server.SimpleHTTPRequestHandler):
    "Serve the site; in its pages, KaTeX from the Debian package when installed, and `?from=ID`."
    def log_message(self, *args): pass

    def translate_path(self, path):
        if not path.startswith('/__katex__/'): return super().translate_path(path)
        f = KATEX/urlsplit(path).path[len('/__katex__/'):]
        return str(f if f.exists() else f.with_name(f.name.replace('.min.', '.')))  # Debian has auto-render.js

    def do_GET(self):
        f = Path(self.translate_path(self.path))
        if f.suffix != '.html' or not f.is_file(): return super().do_GET()
        page = f.read_text(encoding='utf-8')
        if KATEX.is_dir(): page = re.sub(r'https://cdn\.jsdelivr\.net/npm/katex@[^/]+/dist/', '/__katex__/', page)
        start = parse_qs(urlsplit(self.path).query).get('from')
        if start: page = page.replace('</head>', FROM % start[0] + '</head>', 1)
        body = page.encode()
        self.send_response(200)
        self.send_header('Content-Type', 'text/html; charset=utf-8')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('pages', nargs='*', default=['index', 'bins', 'forecast'])
    p.add_argument('--site', default=str(ROOT/'_docs'), help='the built site (default _docs)')
    p.add_argument('--dir', default='/tmp/docs_shots', help='where the PNGs go (default /tmp/docs_shots)')
    p.add_argument('--width', type=int, default=1400)
    p.add_argument('--height', type=int, default=2000, help='the window height: how much of the page is captured')
    a = p.parse_args()
    site, shots = Path(a.site).resolve(), Path(a.dir)
    if not (site/'index.html').exists(): sys.exit(f'screenshot_docs: no site at {site}; run tools/build_docs.py first')
    shots.mkdir(parents=True, exist_ok=True)
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(Handler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    failed = 0
    try:
        for page in a.pages:
            page, _, start = page.partition('#')
            rel = page if page.endswith('.html') else page + '.html'
            if not (site/rel).exists(): print(f'missing: {site/rel}', file=sys.stderr); failed += 1; continue
            png = shots/(rel[:-5].replace('/', '__') + (f'__{start}' if start else '') + '.png')
            url = f'http://127.0.0.1:{server.server_port}/{rel}' + (f'?from={start}' if start else '')
            with tempfile.TemporaryDirectory() as profile:
                cmd = ['chromium', *FLAGS, f'--user-data-dir={profile}', f'--window-size={a.width},{a.height}',
                       f'--screenshot={png}', url]
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            ok = r.returncode == 0 and png.exists()
            failed += not ok
            print(png if ok else f'failed: {rel}: {r.stderr.strip()[-300:]}')
    finally: server.shutdown()
    sys.exit(1 if failed else 0)


if __name__ == '__main__': main()
