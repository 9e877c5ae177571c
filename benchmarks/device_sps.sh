#!/usr/bin/env bash
# benchmarks/sps.py on a GPU task's machine (16 cores, no other tenant): the issue-43 rows (AEC env, the core at
# B = 1024 and 4096, TorchRL, the references) first on two cores (taskset, 2 numba and torch threads: the 2-core
# VM's setting, without its neighbours), RUNS runs (2) for sps_compare, and once on all 16 (after the first). Runs
# in one call of about 9 minutes (each sps.py run about 2: its rows timed in rounds). Writes under $OUT:
#   sps_2cpu_run1.json .. sps_2cpu_runN.json   two CPUs, two threads
#   sps_16cpu.json                             every CPU, numba's default threads
#   agree_2cpu.json                            python -m benchmarks.sps_compare over the two-CPU runs
#   profile_{torchrl,core}_{16,2}cpu.json      python -m benchmarks.profile_row at B = 1024 (PROFILE=0: none)
#   one_call.json                              python -m benchmarks.one_call (ONE_CALL=1; not run by default:
#                                              its figures are in docs/benchmarks.md, and the sps runs, timed
#                                              in rounds, take longer than they did)
#   log.txt                                    everything printed
# RUNS=0: the profiles alone (about 2 minutes with the compile).
# Usage (from the repo root, with the wheels of benchmarks/device_wheels.sh in .whl/):
#   OUT=/tmp/out bash benchmarks/device_sps.sh
set -uo pipefail
OUT=${OUT:-/tmp/device_out}
RUNS=${RUNS:-2}  # three no longer fit the device's 600 s a call beside the compile and the profiles
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
export PYTHONUNBUFFERED=1
source benchmarks/device_env.sh
T0=$(date +%s)
timeout 240 python3 -m subterra_env.warmup || exit 1   # compiles here: the shipped portable code is for Python 3.11
KINDS="--kinds aec core torchrl reference"
python3 -c "import torchrl" || { echo "torchrl does not import: no TorchRL rows"; KINDS="--kinds aec core reference"; }
# the rest of what the rows need (the "one call" row, TorchRL) compiled and imported before any timing
timeout 120 python3 -m benchmarks.sps --quick $KINDS --batches 64 --out "$OUT/quick.json" >/dev/null || echo failed
echo "compiled after $(( $(date +%s) - T0 )) s"
PIN=""; command -v taskset >/dev/null && PIN="taskset -c 0,1"
if [ "${ONE_CALL:-0}" = 1 ]; then  # the one call against the separate kernels on 1, 2, 4, ... 16 threads
    timeout 300 python3 -m benchmarks.one_call --pairs "${ONE_CALL_PAIRS:-5}" --out "$OUT/one_call.json"
    echo "one call against separate kernels after $(( $(date +%s) - T0 )) s"
fi
if [ "${PROFILE:-1}" = 1 ]; then  # where a step's time goes, on every core and on two
    for row in torchrl core; do
        [ "$row" = torchrl ] && [ "$KINDS" = "--kinds aec core reference" ] && continue
        PROFILE_ROW="python3 -m benchmarks.profile_row --row $row --batch 1024 --seconds 2 --top 25"
        timeout 60 $PROFILE_ROW --out "$OUT/profile_${row}_16cpu.json"
        NUMBA_NUM_THREADS=2 OMP_NUM_THREADS=2 timeout 60 $PIN $PROFILE_ROW --out "$OUT/profile_${row}_2cpu.json"
    done
    echo "profiled after $(( $(date +%s) - T0 )) s"
fi
[ "$RUNS" -ge 1 ] || { ls -la "$OUT"; exit 0; }
SPS="python3 -m benchmarks.sps $KINDS --batches 1024 4096 --seconds ${SECONDS_PER_RUN:-0.3} --repeats 5 --warmup 0.5 \
  --rest 0.1"
two_cpus() {
    NUMBA_NUM_THREADS=2 OMP_NUM_THREADS=2 timeout 150 $PIN $SPS --out "$OUT/sps_2cpu_run$1.json"
    echo "two-CPU run $1 done after $(( $(date +%s) - T0 )) s"
}
two_cpus 1
timeout 150 $SPS --out "$OUT/sps_16cpu.json"   # second, so that a call cut short still has both kinds
echo "16-CPU run done after $(( $(date +%s) - T0 )) s"
for i in $(seq 2 "$RUNS"); do two_cpus "$i"; done
python3 -m benchmarks.sps_compare "$OUT"/sps_2cpu_run*.json --out "$OUT/agree_2cpu.json"
ls -la "$OUT"
