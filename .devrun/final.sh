#!/usr/bin/env bash
# Twentieth session, last call: the carried cuzk-bench (c608b74 + comments), uncapped, then 16G off / on.
set -u
B=build/release/cuzk-bench
T0=$(date +%s)
el() { echo $(($(date +%s) - T0)); }
run() { # name timeout args... (env in front via env)
  local name=$1 to=$2; shift 2
  local left=$((300 - $(el)))
  [ $left -lt 60 ] && { echo "$name NOT RUN"; return; }
  [ $to -gt $left ] && to=$left
  local t0=$(date +%s)
  timeout $to "$@" > $OUT/$name.log 2>&1; local rc=$?
  echo "== $name rc=$rc $(($(date +%s)-t0)) s"
  grep -E "^steady|^throughput|prover busy|peak RSS|peak accounted|buffer sets" $OUT/$name.log
}
nvidia-smi --query-gpu=name,memory.used --format=csv,noheader
run uncapped 110 $B batch --circuit porep:32GiB -n 2 -j 2 --partition-workers 3
run 16G-off 125 $B batch --circuit porep:32GiB -n 2 -j 2 --partition-workers 3 --gpu-memory-limit 16G --abc host
run 16G-three 125 env CUZK_GPU_QUERIES_ABOVE=1 CUZK_GPU_H_FIRST=1 CUZK_GPU_B2_OVERLAP=1 $B batch --circuit porep:32GiB -n 2 -j 2 --partition-workers 3 --gpu-memory-limit 16G --abc host
echo "total $(el) s"
