"""Build the docs site and README.md from the notebooks in nbs/, with Quarto when it is installed, else with smalldocs.

    .venv/bin/python tools/build_docs.py                 # the site in _docs/, and README.md
    .venv/bin/python tools/build_docs.py --out /tmp/site # the site somewhere else

Steps (nbdev and smalldocs do the work; this file only chains them):
1. nbdev: write nbs/nbdev.yml (from settings.ini) and nbs/sidebar.yml (every notebook, sub-folders such as
   nbs/analysis/ as sections, in file-name order), then `proc_nbs` copies nbs/ into _proc/, running the show_doc
   cells and applying the `#|` directives (hide, export, ...). _proc/ is rebuilt from scratch on every run.
2. The site: `quarto render` in _proc/ when `quarto` is on PATH (as `nbdev_docs` does), else smalldocs renders
   _proc/ (its _quarto.yml, nbdev.yml and sidebar.yml) the same way. The result is moved to --out.
3. Offline assets: the site ships what its pages would otherwise fetch from a CDN (`vendor_assets`), so maths and
   fonts render with no internet. KaTeX (its js, css, auto-render and fonts) goes to site_libs/katex/ and every page
   points there instead of cdn.jsdelivr.net; the theme's Google font (cosmo's Source Sans Pro) goes to
   site_libs/fonts/ and the theme's `@import` of fonts.googleapis.com points there. Afterwards no page or stylesheet
   may load a script, stylesheet or font from outside the site, or the step fails naming it.
4. README.md: nbconvert turns _proc/index.ipynb into GitHub markdown (outputs kept, `#|` options applied, Quarto-only
   syntax removed); figures, if any, go to index_files/ (commit them with the README).

Nothing under nbs/ changes except nbdev.yml and sidebar.yml. A failing step prints one line,
`build_docs: <step> failed: <reason>`, and exits 1. Check the result with tools/check_docs.py (every page in
headless Chromium: errors, maths, links) and look at it with tools/screenshot_docs.py.

Where the offline assets come from: the npm registry, at the versions and integrity hashes pinned in `NPM` below.
npm is the upstream of both (KaTeX publishes its dist/ there; Fontsource packages the Google fonts there), and it is
reachable wherever the project is built. No PyPI package carries KaTeX's own dist/ files at a version we can pin (the
KaTeX packages there wrap or pre-render it instead), so a dev dependency would be a second-hand copy. Each tarball is
fetched once with `npm pack` and kept in ~/.cache/gpu_forecasters/npm/ ($XDG_CACHE_HOME if set); it is used only
if its sha512 equals the pinned one, from the cache as from the registry, so later builds work offline and a
registry that served other bytes fails the build. To move to another version: `npm view katex@X dist.integrity`,
then change its line in `NPM`. With Quarto, `quarto render` is asked for KaTeX (`html-math-method`) and its CDN
links are rewritten the same way (not tried here: Quarto is not installed on the project's machines).

show_doc as a parameter table (a patch for this build only; notebooks and tests still use stock nbdev):
fastcore 1.12's `MarkdownRenderer`, under nbdev's `show_doc`, writes the signature as a code block with each
parameter's docment as a trailing comment. `_table_show_doc` below restores what older nbdev showed: nbdev's source link
and heading (unchanged), the signature on one line (wrapped when long) without comments, the docstring, then
fastcore's `DocmentTbl` (Type, Default, Details and a Returns row; `|` escaped so a cell cannot split the table).
`_patch_show_doc` puts it in place of `fastcore.docments.MarkdownRenderer._repr_markdown_`, which nbdev's
`BasicMarkdownRenderer` calls for everything after the heading. proc_nbs would run the notebooks in *spawned* worker
processes, which do not inherit a patch made here, so it runs them serially in this process (n_workers=0): on the
project's 2-core machines that is also faster than spawning two workers that each import nbdev and the library again.
`nbdev_step` checks _proc/ afterwards and fails if any show_doc output kept the code-block form.
"""
import argparse, base64, gc, hashlib, inspect, json, os, re, shutil, subprocess, sys, tarfile, tempfile, time
import yaml
from pathlib import Path, PurePosixPath
from urllib.parse import parse_qs, urlsplit

ROOT = Path(__file__).resolve().parents[1]


def _anno(a):
    "An annotation as nbdev writes it, without module prefixes: numpy.ndarray -> ndarray, __main__.Forecast -> Forecast."
    import fastcore.docments as fd
    return re.sub(r'\b(?:[A-Za-z_]\w*\.)+(?=[A-Za-z_])', '', fd._f_name(a) or fd._fmt_anno(a))


def _param(p):
    "One parameter of the signature: *args, name:anno=default."
    import fastcore.docments as fd
    s = fd._show_param(p.replace(annotation=p.empty))
    s = re.sub(r'=([A-Za-z_][\w.]*)\(.{30,}\)$', r'=\1(...)', s)  # a long default such as Options(a=1, ...): the table has it
    if p.annotation is p.empty: return s
    nm = {p.VAR_POSITIONAL: '*', p.VAR_KEYWORD: '**'}.get(p.kind, '') + p.name
    return f'{nm}:{_anno(p.annotation)}{s[len(nm):]}'


def _md_text(s):
    "Markdown from plain text, outside code spans: figures/<key>.png is not taken for HTML, nor --json for an en dash."
    esc = {'<': '\\<', '-': '-<span></span>'}  # not \-\-: smalldocs makes that an en dash all the same
    return re.sub(r'(`+).*?\1|<(?=[A-Za-z/])(?!https?:)|-(?=-)', lambda m: m[0] if m[1] else esc[m[0]], s, flags=re.S)


def _lib_twin(sym):
    "The library's copy of a dataclass that a notebook defined in __main__, where fastcore reads no field docments."
    from importlib import import_module
    from nbdev.config import get_config
    try:
        syms = import_module(get_config().lib_name + '._modidx').d['syms']
        mod = next(m for m, d in syms.items() if f'{m}.{sym.__qualname__}' in d)
        return getattr(import_module(mod), sym.__qualname__)
    except Exception: return sym  # not exported (yet): the table is left out, as fastcore would


def _table_show_doc(self, width=80):
    "show_doc after nbdev's heading: the signature, the docstring, then the DocmentTbl parameter table."
    import fastcore.docments as fd
    md = ''
    if self.sig:
        params, ps = [p for n, p in self.sig.parameters.items() if n != 'self'], []
        for i, p in enumerate(params):  # with Python's markers: `*` before keyword-only, `/` after positional-only
            if p.kind == p.KEYWORD_ONLY and (i == 0 or params[i - 1].kind not in (p.KEYWORD_ONLY, p.VAR_POSITIONAL)): ps.append('*')
            ps.append(_param(p))
            if p.kind == p.POSITIONAL_ONLY and (i + 1 == len(params) or params[i + 1].kind != p.POSITIONAL_ONLY): ps.append('/')
        ret = self.sig.return_annotation
        ret = '' if ret is fd.empty or isinstance(self.sym, type) else f' -> {_anno(ret)}'
        lines, cur, fresh = [], f'{self.nm}(', True  # a long signature wraps after a comma, lined up under the "("
        for i, s in enumerate(ps):
            s += ', ' if i < len(ps) - 1 else ')' + ret
            if not fresh and len(cur) + len(s.rstrip()) > width: lines.append(cur.rstrip()); cur = ' ' * (len(self.nm) + 1)
            cur, fresh = cur + s, False
        if not ps: cur += ')' + ret
        md = '```python\n' + '\n'.join(lines + [cur]) + '\n```'
    if self.docs: md += '\n\n' + fd._ital_first(_md_text(self.docs))
    sym = _lib_twin(self.sym) if fd.isdataclass(self.sym) and self.sym.__module__ == '__main__' else self.sym
    tbl = fd.DocmentTbl(sym)
    if tbl.has_docment: md += '\n\n' + str(tbl)
    return md.lstrip('\n')


def _patch_show_doc():
    "Apply `_table_show_doc`, and escape `|` in the table's cells (a bare `|` would end the cell)."
    import fastcore.docments as fd
    def esc(o):
        if isinstance(o, inspect._ParameterKind): return ''  # fastcore's type of **kwargs, VAR_KEYWORD, says nothing
        s = fd._maybe_nm(o)
        return s if re.fullmatch(r'-+', s) else re.sub(r'(?<!\\)\|', r'\\|', _md_text(s)).replace('\n', ' ')
    fd._list2row = lambda l: '| ' + ' | '.join(esc(o) for o in l) + ' |'
    fd.MarkdownRenderer._repr_markdown_ = _table_show_doc


def _parse_each_module_once():
    """Python 3.11 and 3.12 find a class's source (`inspect.getsource`, which show_doc calls for every class, dataclass
    and method's owner) by parsing its whole module with `ast.parse`: the same few modules thousands of times. inspect's
    own calls get a cache keyed by the module's text (the site's build went from 39 s to 35 s). inspect only reads the
    tree, and nothing else shares the cache (IPython, which transforms its trees, calls `ast.parse` itself)."""
    import ast, functools, types
    inspect.ast = types.SimpleNamespace(**{**vars(ast), 'parse': functools.lru_cache(maxsize=128)(ast.parse)})


def nbdev_step():
    "Refresh nbdev.yml and sidebar.yml, then process every notebook into _proc/."
    from nbdev.quarto import refresh_quarto_yml, nbdev_sidebar
    from nbdev.serve import proc_nbs
    from nbdev.doclinks import nbglob
    for nb in nbglob():  # a notebook that is not valid JSON (half-saved, a merge conflict) fails with its name
        try: json.loads(Path(nb).read_text(encoding='utf-8'))
        except ValueError as e: raise ValueError(f'{os.path.relpath(nb)} is not a readable notebook: {e}') from None
    refresh_quarto_yml()
    nbdev_sidebar.__wrapped__()
    _patch_show_doc(); _parse_each_module_once()
    # force: a deleted or renamed notebook must not linger in _proc/; n_workers=0: in this process, with the patch
    proc = proc_nbs(force=True, n_workers=0)
    for nb in sorted(proc.rglob('*.ipynb')):  # every show_doc output has the table form (module docstring)
        mds = [''.join(o.get('data', {}).get('text/markdown', '')) for c in json.loads(nb.read_text(encoding='utf-8'))['cells']
               for o in c.get('outputs', [])]
        if any(re.search(r'^```python\n\n(async )?def ', md, flags=re.M) for md in mds):
            raise RuntimeError(f'{nb.relative_to(proc)}: show_doc kept the code-block form (the patch of fastcore did not apply)')
    return proc


def render_site(proc: Path, out: Path):
    "Render _proc/ into `out` with Quarto if installed, else smalldocs."
    built = proc/'_docs'  # nbdev.yml sets project.output-dir to the doc_path of settings.ini
    if shutil.which('quarto'):
        r = subprocess.run(['quarto', 'render', '--no-cache', '-M', 'html-math-method:katex'], cwd=proc, capture_output=True, text=True)
        if r.returncode: raise RuntimeError((r.stderr.strip().splitlines() or ['quarto render failed'])[-1])
    else:
        from smalldocs.config import load
        from smalldocs.site import Site

        class NbdevSite(Site):
            "smalldocs, plus Quarto's `output-file`, which nbdev sets (00_bins.ipynb -> bins.html)."
            def read(self, src):
                page = super().read(src)
                if page.front.get('output-file'): page.out = PurePosixPath(src.parent, str(page.front['output-file']))
                return page
            def render_page(self, page):
                super().render_page(page)
                # a long name in a table cell (search_events/{a,b}__sample_{c,d}.jsonl) would widen the table past the
                # page, as a word is never broken: let it break after / , and }
                wbr = lambda m: re.sub(r'<code>([^<]{25,})</code>', lambda c: '<code>' + re.sub(r'(?<=[/,}])(?=.)', '<wbr>', c[1]) + '</code>', m[0])
                page.html = re.sub(r'<td\b[^>]*>.*?</td>', wbr, page.html, flags=re.S)
            def find_page(self, target):  # a link to bins.html finds 00_bins.ipynb
                return super().find_page(target) or next((p for p in self.pages.values() if p.out == target), None)

        site = NbdevSite(load(proc), quiet=True)
        site.build()
        known = r'output-file is not read|format commonmark is not built|keep-md is ignored'  # nbdev's stock settings
        for w in site.warnings:
            if not re.search(known, w): print(f'smalldocs: {w}', file=sys.stderr)
    if built.resolve() != out.resolve():
        shutil.rmtree(out, ignore_errors=True)
        shutil.move(built, out)


# The npm packages whose files the site ships: name -> (version, integrity as `npm view NAME@VERSION dist.integrity`)
NPM = {'katex': ('0.16.47', 'sha512-Eeo8Ys1doU1z+x8AZsPpQu+p/QcZBI5PeOo7QGQdy2x2m0MU/hYagBbGOmXwr5KVbEfVuWv9LpnQWeehogurjg=='),
       '@fontsource/source-sans-pro': ('5.3.0', 'sha512-nd96qXI4stbyRPNEygS2cNhMkAc1kkW9+ORmIOK0oelPTyiitRPk/+9+HUuUYuEjwRRkK/+Gat2J9/NMJest/A==')}
KATEX_CDN = r'https?://cdn\.jsdelivr\.net/npm/katex@[^/"\'\s]+/dist/'  # where smalldocs (and Quarto) point pages for KaTeX
GOOGLE_FONTS = r'@import\s+url\(\s*(["\']?)(https?://fonts\.googleapis\.com/css2?\?[^)"\']*)\1\s*\)\s*;?'


def _integrity(data: bytes) -> str: return 'sha512-' + base64.b64encode(hashlib.sha512(data).digest()).decode()


def npm_tarball(name: str) -> Path:
    "The pinned tarball of npm package `name` (see `NPM`): from the cache, else `npm pack`; its sha512 checked either way."
    version, pinned = NPM[name]
    cache = Path(os.environ.get('XDG_CACHE_HOME') or Path.home()/'.cache')/'gpu_forecasters'/'npm'
    tgz = cache/f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"  # as npm pack names it
    if tgz.exists() and _integrity(tgz.read_bytes()) == pinned: return tgz
    if not shutil.which('npm'): raise RuntimeError(f'npm is not installed, and {name}@{version} is not in {cache}: install Node.js and npm (apt-get install -y npm)')
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        r = subprocess.run(['npm', 'pack', f'{name}@{version}', '--pack-destination', tmp, '--json'], capture_output=True, text=True)
        if r.returncode:  # with --json, npm puts {"error": {"summary": ...}} on stdout
            try: why = json.loads(r.stdout)['error']['summary']
            except (ValueError, KeyError, TypeError): why = (r.stderr.strip().splitlines() or ['no message'])[0]
            raise RuntimeError(f'npm pack {name}@{version} failed (no network? the docs ship it from the npm registry): {why}')
        got = Path(tmp)/json.loads(r.stdout)[0]['filename']
        if _integrity(got.read_bytes()) != pinned:
            raise RuntimeError(f'npm pack {name}@{version} gave a tarball whose sha512 is not the pinned one in tools/build_docs.py NPM: not used')
        os.replace(got, tgz)
    return tgz


def _extract(name: str, dest: Path, keep) -> int:
    "Copy the files of npm package `name` for which keep(path in the package) gives a path into `dest`; their count."
    n = 0
    with tarfile.open(npm_tarball(name)) as tar:
        for m in tar.getmembers():
            rel = m.name.removeprefix('package/')
            to = keep(rel) if m.isfile() else None
            if not to: continue
            (dest/to).parent.mkdir(parents=True, exist_ok=True)
            (dest/to).write_bytes(tar.extractfile(m).read())  # bytes only: no path or mode from the tarball is trusted
            n += 1
    return n


def _offset(page: Path, out: Path) -> str: return '../' * (len(page.relative_to(out).parts) - 1)


def vendor_katex(out: Path):
    "KaTeX into out/site_libs/katex/, and every page's KaTeX links pointed there."
    keep = lambda rel: rel.removeprefix('dist/') if re.fullmatch(r'dist/(katex\.min\.(js|css)|contrib/auto-render\.min\.js|fonts/.*)', rel) else rel if rel == 'LICENSE' else None
    pages = [p for p in out.rglob('*.html') if re.search(KATEX_CDN, p.read_text(encoding='utf-8'))]
    if not pages: return
    if not _extract('katex', out/'site_libs'/'katex', keep): raise RuntimeError('the katex tarball has no dist/ files')
    for p in pages: p.write_text(re.sub(KATEX_CDN, _offset(p, out) + 'site_libs/katex/', p.read_text(encoding='utf-8')), encoding='utf-8')


def vendor_google_fonts(out: Path):
    "Each Google font a stylesheet @imports, from its Fontsource package into out/site_libs/fonts/, and the @import pointed there."
    def local(css: Path, url: str) -> str:
        imports = []
        for family in parse_qs(urlsplit(url).query).get('family', []):
            m = re.fullmatch(r'([^:]+)(?::wght@([\d;]+))?', family)
            slug = m and m[1].lower().replace(' ', '-')
            if not m or f'@fontsource/{slug}' not in NPM:
                raise RuntimeError(f"{css.relative_to(out)} imports the Google font '{family}': pin @fontsource/<its name> in NPM (tools/build_docs.py) so that the site ships it")
            weights = (m[2] or '400').split(';')
            keep = lambda rel: rel if re.fullmatch(rf"LICENSE|({'|'.join(weights)})\.css|files/[\w-]+-({'|'.join(weights)})-normal\.woff2?", rel) else None
            _extract(f'@fontsource/{slug}', out/'site_libs'/'fonts'/slug, keep)
            rel = os.path.relpath(out/'site_libs'/'fonts'/slug, css.parent).replace(os.sep, '/')
            imports += [f'@import url({rel}/{w}.css);' for w in weights]
        return ''.join(imports)
    for css in out.rglob('*.css'):
        text = css.read_text(encoding='utf-8')
        if re.search(GOOGLE_FONTS, text): css.write_text(re.sub(GOOGLE_FONTS, lambda m: local(css, m[2]), text), encoding='utf-8')


def outside_assets(out: Path) -> list[str]:
    "What the site's pages and stylesheets would load from other hosts: scripts, stylesheets, fonts, @imports."
    found = []
    for f in sorted(out.rglob('*.html')) + sorted(out.rglob('*.css')):
        text = f.read_text(encoding='utf-8')
        if f.suffix == '.html':
            tags = re.findall(r'<script\b[^>]*>|<link\b[^>]*>', text)
            urls = [u for t in tags if t.startswith('<script') or re.search(r'rel="?(stylesheet|preload|modulepreload|icon)', t)
                    for u in re.findall(r'\b(?:src|href)="(https?://[^"]+)"', t)]
            scripts = ''.join(re.findall(r'<script\b[^>]*>(.*?)</script>', text, flags=re.S))  # ES module imports (mermaid)
            urls += re.findall(r'\b(?:import\b[^;]*?|import\s*\(\s*)[\'"](https?://[^\'"]+)[\'"]', scripts)
        else: urls = re.findall(r'(?:@import\s+|url\(\s*)["\']?(https?://[^"\')\s]+)', text)
        found += [f'{f.relative_to(out).as_posix()} loads {u}' for u in dict.fromkeys(urls)]
    return found


def vendor_assets(out: Path):
    "Ship KaTeX and the theme's fonts with the site, so that it renders offline; fail if anything still comes from outside."
    vendor_katex(out)
    vendor_google_fonts(out)
    if outside := outside_assets(out):
        more = f' (and {len(outside) - 1} more)' if len(outside) > 1 else ''
        raise RuntimeError(f'{outside[0]} from outside the site{more}: ship it in site_libs/, as vendor_assets does for KaTeX')


def _cell_opts(src):
    "The `#| key: value` options of a code cell, and its source without them."
    lines = src.splitlines()
    n = next((i for i, l in enumerate(lines) if not l.startswith('#|')), len(lines))
    opts = dict(re.match(r'#\|\s*([\w-]+)\s*:?\s*(.*)', l).groups() for l in lines[:n] if re.match(r'#\|\s*[\w-]', l))
    return opts, '\n'.join(lines[n:])


def _gfm(md):
    "Turn what only Quarto reads into GitHub markdown: callouts to alerts; drop other divs, {=html} fences, {attributes}."
    def alert(m): return f'> [!{m[1].upper()}]\n' + re.sub(r'^', '> ', m[2].strip('\n'), flags=re.M) + '\n'
    md = re.sub(r'^:{3,}\s*\{\.callout-(note|tip|important|warning|caution)\b[^}]*\}\n(.*?)^:{3,}\s*$', alert, md, flags=re.S | re.M)
    md = re.sub(r'^(`{3,})\{=html\}\n(.*?)\n\1$', r'\2', md, flags=re.S | re.M)
    md = re.sub(r'^:{3,}.*\n', '', md, flags=re.M)
    md = re.sub(r'(\]\([^)\s]*\))\{[^}\n]*\}', r'\1', md)
    md = re.sub(r'<style scoped>.*?</style>\n?', '', md, flags=re.S)  # pandas' CSS, which GitHub would print as text
    md = re.sub(r'^[ \t]+$', '', md, flags=re.M)
    return re.sub(r'\n{3,}', '\n\n', md).strip() + '\n'


def write_readme(proc: Path, readme: Path):
    "README.md from the processed readme notebook, as `nbdev_readme` would make it with Quarto's gfm output."
    import nbformat
    from nbconvert import MarkdownExporter
    from nbdev.config import get_config
    readme_nb = get_config().readme_nb
    files = Path(readme_nb).stem + '_files'  # the README's figures, as nbdev_readme names the folder
    nb = nbformat.read(proc/readme_nb, as_version=4)
    head = ''
    for cell in list(nb.cells):
        if cell.cell_type == 'raw' and cell.source.startswith('---'):  # nbdev's front matter: title and description
            fm = yaml.safe_load(cell.source.strip().strip('-')) or {}
            head = f"# {fm.get('title', '')}\n\n" + (f"> {fm['description']}\n\n" if fm.get('description') else '')
            nb.cells.remove(cell)
        elif cell.cell_type == 'code':
            opts, cell.source = _cell_opts(cell.source)
            off = {k for k, v in opts.items() if v.lower() == 'false'}
            if 'include' in off: nb.cells.remove(cell); continue
            if 'echo' in off or not cell.source.strip(): cell.metadata['transient'] = {'remove_source': True}
            if 'output' in off: cell.outputs = []
    nb.metadata.setdefault('language_info', {})['name'] = 'python'
    body, res = MarkdownExporter().from_notebook_node(nb, resources={'output_files_dir': files})
    readme.write_text(_gfm(head + body))
    shutil.rmtree(readme.parent/files, ignore_errors=True)  # made afresh
    for name, data in res.get('outputs', {}).items():
        (readme.parent/name).parent.mkdir(parents=True, exist_ok=True)
        (readme.parent/name).write_bytes(data)


def _why(e):
    "An error in one line; for an error in a proc_nbs worker process, with the first error of the worker's traceback."
    msg = f"{type(e).__name__}: {(str(e).strip().splitlines() or [''])[0]}"
    root = re.findall(r'^([\w.]*(?:Error|Exception)\b.*)$', str(e.__cause__ or ''), flags=re.M)
    return msg + (f' (cause: {root[0]})' if root and root[0] not in msg else '')


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--out', default='_docs', help='where the site goes, relative to the repo root (default _docs)')
    out = ROOT/p.parse_args().out
    os.chdir(ROOT)  # nbdev finds settings.ini from the working directory
    t0 = time.time()
    for step, f in [('nbdev (proc_nbs, nbdev.yml, sidebar.yml)', nbdev_step),
                    ('site (' + ('quarto' if shutil.which('quarto') else 'smalldocs') + ')', lambda: render_site(ROOT/'_proc', out)),
                    ('offline assets (KaTeX, fonts)', lambda: vendor_assets(out)),
                    ('README.md', lambda: write_readme(ROOT/'_proc', ROOT/'README.md'))]:
        t = time.time()
        try: f()
        except Exception as e: sys.exit(f'build_docs: {step} failed: {_why(e)}')
        print(f'{step}: {time.time() - t:.1f}s', file=sys.stderr)
    print(f'built {os.path.relpath(out)}/ and README.md in {time.time() - t0:.1f}s', file=sys.stderr)
    gc.freeze()  # at exit, each notebook's IPython shell (run in this process) calls gc.collect: ~2 s unless frozen


if __name__ == '__main__': main()
