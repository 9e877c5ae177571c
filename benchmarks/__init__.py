"""Measurements, run from the repository root as ``python -m benchmarks.<script>`` (``make bench``), each writing
JSON under benchmarks/results/: steps per second of every interface with reference PettingZoo games (``sps``, and
``sps_compare`` for how far runs agree; ``device_sps.sh`` runs it on a GPU task's machine), whole PPO iterations
(``train_sps``; ``device_ppo.sh`` runs it and three training runs on a GPU machine; both device scripts install
the wheels of ``device_wheels.sh`` through ``device_env.sh``), start-up cost (``startup``), the bots' and the
shipped team's latency per decision (``latency``, ``onnx_latency``), the browser table's round trip and many
tables at once (``web_roundtrip``, ``web_soak``), the soaks that play many games under the invariant checkers
(``soak``, ``soak_itc``, with what both share in ``soak_shared``), a change timed against another commit in
alternating processes (``paired``), and where an interface's step spends its time (``profile_row``).
docs/benchmarks.md has the figures."""
