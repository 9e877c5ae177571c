#!/usr/bin/env bash
# The native trainer on a GPU machine (one H100/H200, 16 cores), in one call of at most ~9 minutes: the machine's
# python3 holds torch, numba and numpy; the packages it lacks travel as wheels in .whl/ (bash
# benchmarks/device_wheels.sh: gymnasium, pettingzoo, stable-baselines3, sb3-contrib for the CNN row, ...). Writes
# under $OUT:
#   train_sps_4096.json, train_sps_16384.json   benchmarks/train_sps.py rows on cuda
#   tiny_ippo.tgz, tiny_mappo.tgz, small_ippo.tgz   three short training runs (progress, evals, best.pt), each
#                                              apart: the tool brings back files of at most 16 MiB
#   log.txt                                    everything printed
# Usage (from the repo root): OUT=/tmp/out bash benchmarks/device_ppo.sh [SECONDS_PER_RUN]
set -uo pipefail
RUN_SECONDS=${1:-170}   # 190 overran a 590 s call by the final evaluations and exports
OUT=${OUT:-/tmp/device_out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
export PYTHONUNBUFFERED=1 SUBTERRA_QUIET=0
source benchmarks/device_env.sh   # the wheels of benchmarks/device_wheels.sh, and what the machine is
T0=$(date +%s)
# Throughput first, alone on the machine (the rules on every core, the network on the GPU).
timeout 200 python3 -m benchmarks.train_sps --device cuda --num-games 4096 --engine-threads 0 --torch-threads 4 --width 256 \
    --seconds 12 --rows native-ego native-ego-shards2 native-ego-mappo native-cnn --json "$OUT/train_sps_4096.json"
timeout 100 python3 -m benchmarks.train_sps --device cuda --num-games 16384 --engine-threads 0 --torch-threads 4 --width 256 \
    --seconds 12 --rows native-ego native-ego-shards2 --json "$OUT/train_sps_16384.json"
echo "benchmarks done after $(( $(date +%s) - T0 )) s"
# Three learning runs side by side (the GPU shared, the cores split): tiny IPPO, tiny MAPPO, small IPPO.
RUNS=/tmp/runs
COMMON="--config configs/train/ppo_tiny.yaml --set device=cuda --set torch_threads=2 --set engine_threads=4 \
  --set progress_bar=false --set max_seconds=$RUN_SECONDS --set eval_games=500 --set eval_every=5000000 \
  --set checkpoint_every=0 --set num_games=4096 --set width=256 --set minibatches=4 --set lr=0.001 \
  --set ent_coef=0.01 --set clip=0.2"  # the settings of ppo_tiny.yaml when these runs were made
python3 -m training.ppo $COMMON --set total_steps=60000000 --run-dir $RUNS/tiny_ippo &
python3 -m training.ppo $COMMON --set total_steps=60000000 --set critic=mappo --run-dir $RUNS/tiny_mappo &
python3 -m training.ppo $COMMON --set game=small --set total_steps=120000000 --set max_cycles=100 \
    --run-dir $RUNS/small_ippo &
wait
echo "runs done after $(( $(date +%s) - T0 )) s"
for r in tiny_ippo tiny_mappo small_ippo; do
    tar czf "$OUT/$r.tgz" --exclude=tb --exclude=last.pt --exclude=final.pt --exclude=best.onnx -C $RUNS $r
done
ls -la "$OUT"
