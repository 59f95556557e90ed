"""tools/check_docs.py on a tiny site: a page whose maths KaTeX typesets from the site's own copy passes, and every
kind of problem on a broken page is reported, one line each, naming that page only.

The site's KaTeX comes the way the docs build ships it (tools/build_docs.py `vendor_assets`: the pinned npm tarball,
from the cache the docs build filled, else `npm pack`), so this also checks that the pages then load nothing from
outside the site. Needs Debian's chromium (CI installs it); skipped without it.
"""
import importlib.util, shutil, subprocess, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
KATEX = 'https://cdn.jsdelivr.net/npm/katex@0.16.11/dist'  # as smalldocs writes it; the build points it at site_libs/
HEAD = f"""<head><link rel="stylesheet" href="{KATEX}/katex.min.css"><script defer src="{KATEX}/katex.min.js"></script>
<script defer src="{KATEX}/contrib/auto-render.min.js"></script>
<script>addEventListener('DOMContentLoaded', () => renderMathInElement(document.body, {{throwOnError: false}}))</script></head>"""
PAGES = {
    'index.html': f"""<!DOCTYPE html><html>{HEAD}<body><h1 id="top">Good</h1><p>The speedup <span class="math inline">\\(S = t_a / t_c\\)</span>
        is over 1 when faster; prices such as $5 or $10 are not maths. <code>$x$</code> in code is not either.</p>
        <a href="sub/page.html#part">below</a> <a href="bad.html#here">bad</a> <a href="#top">up</a></body></html>""",
    'sub/page.html': f"""<!DOCTYPE html><html>{HEAD}<body><h2 id="part">Part</h2><p><span class="math display">\\[\\sum_i x_i\\]</span></p>
        <a href="../index.html#top">back</a> <a href="../">home</a></body></html>""",
    'bad.html': f"""<!DOCTYPE html><html>{HEAD}<body><p id="here">Raw $x^2$ left as text.</p>
        <p><span class="math inline">z</span> and \\(\\frac{{1}}\\)</p><img src="missing.png">
        <a href="nowhere.html">gone</a> <a href="index.html#nope">no anchor</a>
        <script>undefinedFn()</script><script>console.error('boom')</script></body></html>""",
}
EXPECTED = ['bad.html: failed to load missing.png: the server responded with a status of 404',
            'bad.html: JavaScript error: ReferenceError: undefinedFn is not defined',
            'bad.html: console.error: boom',
            'bad.html: maths left as text: $x^2$',
            'bad.html: maths not typeset by KaTeX: z',
            'bad.html: KaTeX could not typeset \\frac{1} (ParseError: KaTeX parse error',
            'bad.html: loads https://fonts.example.com/x.css from outside the site (net::ERR_NAME_NOT_RESOLVED)',
            'bad.html: broken link nowhere.html: no nowhere.html in the site',
            'bad.html: broken link index.html#nope: index.html has no element with id "nope"']


def _build_docs():
    spec = importlib.util.spec_from_file_location('build_docs', ROOT/'tools'/'build_docs.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not shutil.which('chromium'), reason='needs Debian chromium on PATH (apt-get install -y chromium)')
def test_check_docs_flags_the_broken_page_only(tmp_path):
    site, shots = tmp_path/'site', tmp_path/'shots'
    for name, html in PAGES.items():
        (site/name).parent.mkdir(parents=True, exist_ok=True)
        (site/name).write_text(html)
    _build_docs().vendor_assets(site)
    assert 'site_libs/katex/katex.min.js' in (site/'index.html').read_text()
    assert '../site_libs/katex/katex.min.js' in (site/'sub'/'page.html').read_text()
    bad = site/'bad.html'  # after the build, which would refuse it: a stylesheet from another host
    bad.write_text(bad.read_text().replace('</head>', '<link rel="stylesheet" href="https://fonts.example.com/x.css"></head>'))
    r = subprocess.run([sys.executable, str(ROOT/'tools'/'check_docs.py'), str(site), '--screenshots', str(shots)],
                       capture_output=True, text=True, timeout=300)
    lines = r.stdout.splitlines()
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert all(l.startswith('bad.html: ') for l in lines), lines
    for want in EXPECTED: assert any(l.startswith(want) for l in lines), (want, lines)
    assert len(lines) == len(EXPECTED), lines
    assert '3 pages, 9 problems' in r.stderr
    assert sorted(p.name for p in shots.iterdir()) == ['bad.png', 'index.png', 'sub__page.png']


@pytest.mark.skipif(not shutil.which('chromium'), reason='needs Debian chromium on PATH (apt-get install -y chromium)')
def test_check_docs_needs_a_built_site(tmp_path):
    r = subprocess.run([sys.executable, str(ROOT/'tools'/'check_docs.py'), str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count('\n') == 1 and 'run tools/build_docs.py first' in r.stderr, r.stderr
