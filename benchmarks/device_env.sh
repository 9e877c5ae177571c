# Sourced by the device scripts (benchmarks/device_*.sh) on a GPU task's machine: installs the carried wheels
# (benchmarks/device_wheels.sh) where python3 finds them, and prints what the machine is.
if [ -d .whl ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site:$PWD
fi
nvidia-smi -L 2>/dev/null; nproc; lscpu 2>/dev/null | grep -E "^(Model name|Thread|Core|Socket|NUMA node\(s\)|L3)"
python3 -c "import torch, numba, numpy; print('torch', torch.__version__, 'numba', numba.__version__, 'numpy', \
numpy.__version__, 'cuda', torch.cuda.is_available())"
