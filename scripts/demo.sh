#!/usr/bin/env bash
# The main job: what clq sees, what the default device can do, the thesis
# queries on it, and the same suite on every device side by side.
set -euo pipefail
clq="${1:-build/clq}"
echo "== clq devices"
"$clq" devices
echo
echo "== clq bandwidth (default device: \$CLQ_DEVICE, else the first GPU, else PoCL)"
"$clq" bandwidth --max-size 256M --repeat 3
echo
echo "== clq query on the default device (1M-row Wisconsin tables)"
"$clq" query --rows 1M "
  SELECT AVG(unique1) AS average FROM tenktup1;
  SELECT MAX(unique1 * tenpercent / 100) AS max_value FROM tenktup1;
  SELECT COUNT(*) FROM tenktup1 WHERE unique1 > 1000 AND unique1 < 6000 AND unique2 % 2 = 0 AND two = 0;
  SELECT MAX(t1.unique1 * t1.tenpercent / 100) FROM tenktup1 t1, tenktup2 t2
    WHERE t1.unique1 = t2.unique2 AND t1.unique1 < 6000 AND t2.unique2 > 1000;
  SELECT onepercent, COUNT(*), SUM(unique1), MEDIAN(unique2) FROM tenktup1
    GROUP BY onepercent ORDER BY onepercent DESC LIMIT 5"
echo
echo "== clq bench: the thesis suite on every device, checked against the CPU reference"
"$clq" bench --devices all --suite thesis --rows 100K --repeat 3 --peers cpu
