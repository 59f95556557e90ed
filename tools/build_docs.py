"""Build the docs site and README.md from the notebooks in nbs/, with Quarto when it is installed, else with smalldocs.

    .venv/bin/python tools/build_docs.py                 # the site in _docs/, and README.md
    .venv/bin/python tools/build_docs.py --out /tmp/site # the site somewhere else

Steps (nbdev and smalldocs do the work; this file only chains them):
1. nbdev: write nbs/nbdev.yml (from settings.ini) and nbs/sidebar.yml (every notebook, sub-folders such as
   nbs/analysis/ as sections, in file-name order), then `proc_nbs` copies nbs/ into _proc/, running the show_doc
   cells and applying the `#|` directives (hide, export, ...). _proc/ is rebuilt from scratch on every run.
2. The site: `quarto render` in _proc/ when `quarto` is on PATH (as `nbdev_docs` does), else smalldocs renders
   _proc/ (its _quarto.yml, nbdev.yml and sidebar.yml) the same way. The result is moved to --out.
3. README.md: nbconvert turns _proc/index.ipynb into GitHub markdown (outputs kept, `#|` options applied, Quarto-only
   syntax removed); figures, if any, go to index_files/ (commit them with the README).

Nothing under nbs/ changes except nbdev.yml and sidebar.yml. A failing step prints one line,
`build_docs: <step> failed: <reason>`, and exits 1. Check the result with tools/screenshot_docs.py.
"""
import argparse, json, os, re, shutil, subprocess, sys, time
import yaml
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[1]


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
    return proc_nbs(force=True)  # force: a deleted or renamed notebook must not linger in _proc/


def render_site(proc: Path, out: Path):
    "Render _proc/ into `out` with Quarto if installed, else smalldocs."
    built = proc/'_docs'  # nbdev.yml sets project.output-dir to the doc_path of settings.ini
    if shutil.which('quarto'):
        r = subprocess.run(['quarto', 'render', '--no-cache'], cwd=proc, capture_output=True, text=True)
        if r.returncode: raise RuntimeError((r.stderr.strip().splitlines() or ['quarto render failed'])[-1])
    else:
        from smalldocs.config import load
        from smalldocs.site import Site

        class NbdevSite(Site):
            "smalldocs, plus Quarto's `output-file`, which nbdev sets (00_bins.ipynb -> bins.html)."
            def read(self, src):
                page = super().read(src)
                if page.front.get('output-file'): page.out = PurePosixPath(src.parent, str(page.front['output-file']))
                # show_doc's signature block starts with a blank line ("```python\n\ndef f("), shown as an empty first line
                page.body = re.sub(r'^(`{3,}python)\n\n+', r'\1\n', page.body, flags=re.M)
                return page
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
                    ('README.md', lambda: write_readme(ROOT/'_proc', ROOT/'README.md'))]:
        t = time.time()
        try: f()
        except Exception as e: sys.exit(f'build_docs: {step} failed: {_why(e)}')
        print(f'{step}: {time.time() - t:.1f}s', file=sys.stderr)
    print(f'built {os.path.relpath(out)}/ and README.md in {time.time() - t0:.1f}s', file=sys.stderr)


if __name__ == '__main__': main()
