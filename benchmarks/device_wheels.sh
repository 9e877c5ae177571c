#!/usr/bin/env bash
# The wheels a GPU task's machine lacks, downloaded here into .whl/ (git ignores it; name it in the device tool's
# `carry`). That machine's python3 (3.12) holds torch, numba, numpy, PyYAML and tqdm but not these; nothing can be
# fetched there. Versions: the ones this project's .venv holds.
# Usage (from the repo root, on a machine that reaches PyPI): bash benchmarks/device_wheels.sh
set -euo pipefail
mkdir -p .whl
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl \
    gymnasium==1.4.0 pettingzoo==1.27.0 farama-notifications==0.0.6 pygame-ce==2.5.8 \
    stable-baselines3==2.9.2 sb3-contrib==2.9.2 \
    tensordict==0.14.3 torchrl==0.14.1 pyvers==0.2.3 hoptorch==0.1.4 orjson==3.13.0 importlib-metadata==10.2.0
du -sh .whl
