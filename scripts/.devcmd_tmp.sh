set -u
BUILD=.devbuild timeout 450 scripts/device_run.sh tests > $OUT/tests.txt 2>&1; echo "tests rc=$?"; grep -E "PASS|FAIL" -A3 $OUT/tests.txt | head -40
