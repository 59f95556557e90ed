"The gpu-forecasters CLI where the package is on PYTHONPATH but its console script is not installed (the GPU machine)."
import sys
from gpu_forecasters.runbook import console_main
sys.argv[0] = "gpu-forecasters"
sys.exit(console_main())
