#!/usr/bin/env bash
# scripts/tpch_data.sh SF DIR: the 8 TPC-H tables at scale factor SF as
# DIR/<table>.tbl (tpchgen-cli) and DIR/<table>.clq (clq import); see
# scripts/tpch_data.py. Runs with build/pyenv's Python when there is one
# (./scripts/bootstrap.sh test installs tpchgen-cli there), else python3.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="${CLQ_PYTHON:-}"
if [ -z "$python" ]; then
  if [ -x "$root/build/pyenv/bin/python" ]; then python="$root/build/pyenv/bin/python"; else python=python3; fi
fi
exec "$python" "$root/scripts/tpch_data.py" "$@"
