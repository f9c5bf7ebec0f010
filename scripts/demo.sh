#!/usr/bin/env bash
# The main job: what clq sees and what the default device can do.
set -euo pipefail
clq="${1:-build/clq}"
echo "== clq devices"
"$clq" devices
echo
echo "== clq bandwidth (default device: \$CLQ_DEVICE, else the first GPU, else PoCL)"
"$clq" bandwidth --max-size 256M --repeat 3
