"""Screenshot pages of the built docs site with headless Chromium, to check the rendering by eye. Builds nothing.

    python tools/screenshot_docs.py                           # index, bins, forecast of _docs/ -> /tmp/docs_shots/
    python tools/screenshot_docs.py bins analysis/tab1 --dir /tmp/shots --height 6000
    python tools/screenshot_docs.py 'selective#cell-58'       # the page from the element with id cell-58 on
    python tools/screenshot_docs.py selective --height 0      # the whole page

A page is a path in the built site, with or without .html. `#id` captures the page from that element on, to see
the middle or the end of a long page. `--height` is how many px are captured (0: to the end of the page). Then
look at the PNGs (e.g. the `view` of an editor tool, any viewer). tools/check_docs.py screenshots every page, whole,
and checks them for errors as well.

Needs `chromium` (apt-get install chromium). The site is served from 127.0.0.1 on a free port and the browser has no
internet (tools/docs_browser.py), so what you see is what an offline reader sees: the build ships KaTeX and fonts.
"""
import argparse, sys
from pathlib import Path
from docs_browser import Browser, serve, shot_name

ROOT = Path(__file__).resolve().parents[1]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('pages', nargs='*', default=['index', 'bins', 'forecast'])
    p.add_argument('--site', default=str(ROOT/'_docs'), help='the built site (default _docs)')
    p.add_argument('--dir', default='/tmp/docs_shots', help='where the PNGs go (default /tmp/docs_shots)')
    p.add_argument('--width', type=int, default=1400)
    p.add_argument('--height', type=int, default=2000, help='how many px of the page are captured (0: all of it)')
    a = p.parse_args()
    site, shots = Path(a.site).resolve(), Path(a.dir)
    if not (site/'index.html').exists(): sys.exit(f'screenshot_docs: no site at {site}; run tools/build_docs.py first')
    shots.mkdir(parents=True, exist_ok=True)
    failed = 0
    try:
        with serve(site) as base, Browser(a.width, a.height or 2000) as browser:
            for page in a.pages:
                page, _, start = page.partition('#')
                rel = page if page.endswith('.html') else page + '.html'
                if not (site/rel).exists(): print(f'missing: {site/rel}', file=sys.stderr); failed += 1; continue
                png = shots/shot_name(rel, start)
                try:
                    browser.open(base + rel)
                    y = browser.evaluate(f'(e => e && e.getBoundingClientRect().top + scrollY)(document.getElementById({start!r}))') if start else 0
                    if y is None: raise RuntimeError(f'no element with id {start!r}')
                    browser.screenshot(png, y, a.height or None)
                    print(png)
                except RuntimeError as e: print(f'failed: {rel}: {e}', file=sys.stderr); failed += 1
    except RuntimeError as e: sys.exit(f'screenshot_docs: {e}')
    sys.exit(1 if failed else 0)


if __name__ == '__main__': main()
