# for nbs/index.ipynb, after the paragraph that ends "`tools/measure_evalset_gpu.py` measures it again, or on another
# GPU, on any CUDA machine."
#
# A larger one, `h200_landscape`, is built from the measured H200 landscape (below): pairs of real kernel variants,
# each asking whether one variant beats another, near-edge pairs measured again head to head, failure rows included
# (9 outcomes), with the learned cost model among its baselines:
#
# ```sh
# gpu-forecasters figures --eval-set h200_landscape --predictions h200_landscape --output-dir out-landscape
# ```
#
# FILL: rows, per pack; label noise.
