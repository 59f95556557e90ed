#!/usr/bin/env bash
# Issue 22's live searches on an H100, for when no H200 comes: the same check (does a search replayed on a measured
# landscape see what a live search sees?) on one kind of GPU from end to end. An H100 ratio is no label of the H200
# landscape, so this measures its own landscape of trimul's space on the H100 first (183 variants, about 41 minutes
# on the H200: two device sessions), then the two live searches against it (about 14 minutes). Resumable like
# h200_plan.sh; state lives in runs/h100/ (commit it after every call) and comes back as $OUT/state_h100.tar.gz.
# Call (the H200 plan first: it stops at once, exit 3, on an H100):
#   run(command="TOTAL=550 bash runs/h200_plan.sh; [ $? = 3 ] && TOTAL=540 bash runs/h100_plan.sh", carry=[".whl"])
# then here: tar -xzf /work/.device/N/state_h100.tar.gz -C runs && git add runs/h100 && git commit
set -uo pipefail
T0=$(date +%s); TOTAL=${TOTAL:-540}
S=runs/h100; mkdir -p $S
left() { echo $(( TOTAL - ($(date +%s) - T0) )); }
save() { tar -czf "$OUT/state_h100.tar.gz" -C runs --exclude=hub h100; echo "state saved ($(left) s left)"; }
trap save EXIT
export PYTHONUNBUFFERED=1
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "device: $name"
case "$name" in *H100*) ;; *) echo "not an H100: stopping"; exit 3;; esac
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 4
export PYTHONPATH=/tmp/site:$PWD; chmod -R a+rX /tmp/site
python3 -c "import gpu_forecasters.harness, pydantic, fastcore, landlock; print('imports ok')" || exit 5
L=$S/landscape_h100
# 1. every variant of trimul's space on this H100, as the H200 landscape measured it (same tool, same harness config)
if ! python3 runs/plan_done.py landscape $L trimul; then
  b=$(( $(left) - 60 )); [ $b -gt 30 ] || exit 0
  timeout $(( b + 50 )) python3 tools/measure_landscape.py --out $L --packs trimul --budget-s $b 2>&1 | tee -a $S/landscape.log | tail -n 25
  python3 runs/plan_done.py landscape $L trimul || exit 0
fi
# 2. the live trimul searches (standard and filtered by the online cost model), seed 0, 24 evaluations each, on it
if [ ! -f $S/live_trimul/summary.json ]; then
  b=$(left); [ $b -gt 120 ] || exit 0
  timeout $(( b - 30 )) python3 tools/live_vs_landscape.py --pack trimul --seed 0 --max-evaluations 24 --landscape $L --out $S/live_trimul 2>&1 | tee -a $S/live.log | tail -n 30
fi
[ -f $S/live_trimul/summary.json ] && echo "plan: all steps done"
