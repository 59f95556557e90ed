"""Check the built docs site in headless Chromium: every page loads without errors, its maths typeset by the site's own
KaTeX, its internal links lead somewhere; optionally keep a screenshot of every page.

    python tools/check_docs.py                                        # checks _docs/
    python tools/check_docs.py _docs --screenshots ci-artifacts/docs  # as CI runs it: a PNG per page too

Each problem is one line on stdout, `<page>: <what>`, and the exit code is 1 when there is any; 2 when the check
could not run (no site, no chromium). The last line, on stderr, counts pages and problems. Every .html file of the
site is a page (site_libs/ aside). On each, a problem is:
- an uncaught JavaScript exception, a console.error() or failed console.assert(), or an error the browser logs,
  such as a failed load (a 404, or any request outside the site: the browser has no internet, so a page that needs a
  CDN fails here as it would for an offline reader). Chromium also asks every site for /favicon.ico by itself: that
  one request is not counted, as the pages never asked for it.
- maths not typeset: an element of class `math` (how smalldocs and Quarto wrap TeX) with no KaTeX output in it, a
  KaTeX parse error (`.katex-error`), or TeX left as text outside code: `\\(...\\)`, `\\[...\\]`, `$$...$$` or
  `$...$`. A single `$` pair counts only by Pandoc's rule (no space just inside the dollars, no digit just after the
  closing one), so prose such as "$5 or $10" is not taken for maths.
- a broken internal link: to a file that is not in the site, or to `#anchor` that is no element's id on its page.
  The ids are read after the page's scripts ran, as a reader's browser has them.

How: tools/docs_browser.py serves the site on 127.0.0.1 and drives one headless Chromium over the DevTools protocol
(which reports exceptions, console messages and failed loads as they happen); a script run in each loaded page
finds the maths and collects its links and ids; links are checked once every page is loaded. Screenshots are whole
pages (up to 50000 px high), named as tools/screenshot_docs.py names them (analysis/tab1.html -> analysis__tab1.png);
existing files of the same name are replaced, others are left alone.
"""
import argparse, sys, time
from pathlib import Path
from urllib.parse import unquote, urlsplit
from docs_browser import Browser, html_pages, serve, shot_name

ROOT = Path(__file__).resolve().parents[1]

# Run in each loaded page: maths left untypeset, and the page's ids and same-site links.
PAGE_JS = r"""(() => {
  const problems = [], short = s => { s = s.replace(/\s+/g, ' ').trim(); return s.length > 70 ? s.slice(0, 67) + '...' : s; };
  for (const e of document.querySelectorAll('.math'))
    if (!e.querySelector('.katex')) problems.push('maths not typeset by KaTeX: ' + short(e.textContent));
  for (const e of document.querySelectorAll('.katex-error'))
    problems.push('KaTeX could not typeset ' + short(e.textContent) + (e.title ? ' (' + short(e.title) + ')' : ''));
  // the text of each block outside code, to find TeX that was never typeset (it may span several text nodes)
  const skip = 'code, pre, script, style, textarea, kbd, samp, .katex, .math, .sourceCode';
  const block = 'p, li, td, th, h1, h2, h3, h4, h5, h6, dt, dd, figcaption, caption, blockquote, div, section, main, body';
  const texts = new Map(), walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = walk.nextNode());) {
    const el = n.parentElement;
    if (!el || el.closest(skip)) continue;
    const b = el.closest(block);
    texts.set(b, (texts.get(b) || '') + n.nodeValue);
  }
  const tex = /\\\((.+?)\\\)|\\\[(.+?)\\\]|\$\$(.+?)\$\$|\$(?=[^\s$])((?:[^$\\]|\\.)*?[^\s$\\])\$(?!\d)/gs;
  for (const t of texts.values())
    for (const m of t.matchAll(tex)) problems.push('maths left as text: ' + short(m[0]));
  const ids = [...document.querySelectorAll('[id]')].map(e => e.id).concat([...document.querySelectorAll('a[name]')].map(e => e.name));
  const links = [...document.querySelectorAll('a[href]')].filter(a => a.origin === location.origin && a.protocol.startsWith('http'))
    .map(a => [a.getAttribute('href'), a.href]);
  return {problems, ids, links};
})()"""


def load_problems(events: list, origin: str) -> list[str]:
    "The problems among the DevTools events of one page load: exceptions, console errors, errors the browser logged."
    found = []
    for e in events:
        m, p = e.get('method'), e.get('params', {})
        if m == 'Runtime.exceptionThrown':
            d = p['exceptionDetails']
            what = (d.get('exception') or {}).get('description') or d.get('text', '')
            where = (d.get('url') or 'the page').removeprefix(origin + '/')
            found.append(f"JavaScript error: {what.strip().splitlines()[0]} (line {d.get('lineNumber', 0) + 1} of {where})")
        elif m == 'Runtime.consoleAPICalled' and p['type'] in ('error', 'assert'):
            args = ' '.join(str(a.get('value', a.get('description', ''))) for a in p.get('args', []))
            found.append(f"console.{p['type']}: {args.strip().splitlines()[0] if args.strip() else ''}")
        elif m == 'Log.entryAdded' and p['entry']['level'] == 'error':
            entry, url = p['entry'], p['entry'].get('url', '')
            if url == origin + '/favicon.ico': continue
            text = entry['text'].removeprefix('Failed to load resource: ')
            if url and not url.startswith(origin + '/'): found.append(f'loads {url} from outside the site ({text}): ship it in site_libs/')
            elif url: found.append(f'failed to load {url.removeprefix(origin + "/")}: {text}')
            else: found.append(f"browser error ({entry['source']}): {text}")
    return found


def link_problems(links: list, ids: dict, site: Path, base: str) -> list[str]:
    "Why each [href, absolute URL] of a page leads nowhere: no such file in the site, or no such id on the page."
    found = []
    for href, url in links:
        u = urlsplit(url)
        path = unquote(u.path).lstrip('/')
        if path == '' or path.endswith('/'): path += 'index.html'
        target = site/path
        if target.is_dir() and (target/'index.html').is_file(): path, target = f'{path}/index.html', target/'index.html'
        if not target.is_file(): found.append(f'broken link {href}: no {path} in the site'); continue
        frag = unquote(u.fragment)
        if frag and path in ids and frag not in ids[path]: found.append(f'broken link {href}: {path} has no element with id "{frag}"')
    return found


def check(site: Path, shots: Path | None, width: int = 1400, height: int = 2000) -> tuple[list[str], int]:
    "Every problem of the site as `page: what`, and the number of pages checked."
    pages, problems, ids, links = html_pages(site), [], {}, {}
    if shots: shots.mkdir(parents=True, exist_ok=True)
    with serve(site) as base, Browser(width, height) as browser:
        origin = base.rstrip('/')
        for page in pages:
            try:
                found = load_problems(browser.open(base + page), origin)
                r = browser.evaluate(PAGE_JS)
                found += r['problems']
                ids[page], links[page] = set(r['ids']), r['links']
                if shots: browser.screenshot(shots/shot_name(page))
            except RuntimeError as e:
                if browser.closed: raise RuntimeError(f'chromium stopped while checking {page}: {e}') from None
                found = [str(e)]
            problems += [f'{page}: {p}' for p in dict.fromkeys(found)]
        for page in pages:
            problems += [f'{page}: {p}' for p in dict.fromkeys(link_problems(links.get(page, []), ids, site, base))]
    return sorted(problems, key=lambda line: pages.index(line.split(': ', 1)[0])), len(pages)  # by page, stable


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('site', nargs='?', default=str(ROOT/'_docs'), help='the built site (default _docs)')
    p.add_argument('--screenshots', metavar='DIR', help='keep a PNG of every page here (e.g. ci-artifacts/docs)')
    p.add_argument('--width', type=int, default=1400, help='the window width in px (default 1400)')
    a = p.parse_args()
    site, t0 = Path(a.site).resolve(), time.time()
    if not (site/'index.html').is_file(): print(f'check_docs: no site at {site} (no index.html): run tools/build_docs.py first', file=sys.stderr); sys.exit(2)
    try: problems, n = check(site, Path(a.screenshots) if a.screenshots else None, a.width)
    except RuntimeError as e: print(f'check_docs: {e}', file=sys.stderr); sys.exit(2)
    for line in problems: print(line)
    shots = f', screenshots in {a.screenshots}/' if a.screenshots else ''
    print(f'check_docs: {n} pages, {len(problems)} problems{shots} ({time.time() - t0:.1f}s)', file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == '__main__': main()
