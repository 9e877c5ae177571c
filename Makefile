# The README's two commands: `make run` (train a small team, then evaluate it beside the random, heuristic, search
# and shipped teams) and `make test`. Each creates .venv and installs what it needs by itself.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RLLIB_VENV := .venv-rllib
RLLIB_STAMP := $(RLLIB_VENV)/.installed
RUN_DIR ?= runs/quickstart
GAMES ?= 200

.PHONY: run run-sb3 baselines train eval eval-search play serve test test-main test-rllib bench prebuilt clean

# After installing, agents.warmup compiles the rules core and the bots (subterra_env.warmup, then the heuristic and
# search kernels): a few minutes on 2 cores, once, that the first test, game or training run would spend anyway;
# later processes load them from numba's cache (subterra_env/games/sub_terra/core/jit.py).
$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e ".[dev,train,torchrl,web,onnx,tune,datasets]"
	$(BIN)/python -m agents.warmup
	touch $(STAMP)

# After editing the rules core or the compiled bots: rebuild the portable machine code the package ships (a fresh
# install loads it instead of compiling; subterra_env/games/sub_terra/core/portable.py), about 4 minutes on 2 cores.
prebuilt: $(STAMP)
	$(BIN)/python -m agents.prebuild

# Ray RLlib pins gymnasium 1.2.2, so its tests run in a venv of their own (the main one keeps gymnasium 1.4).
$(RLLIB_STAMP): pyproject.toml
	$(PY) -m venv $(RLLIB_VENV)
	$(RLLIB_VENV)/bin/pip install -q --upgrade pip
	$(RLLIB_VENV)/bin/pip install -q torch==2.13.0
	$(RLLIB_VENV)/bin/pip install -q -e ".[dev,distributed]"
	touch $(RLLIB_STAMP)

# About 15 minutes on 2 CPU cores: the native trainer (training/ppo.py) from scratch on the tiny cave, no behaviour
# cloning and no heuristic advice, on two seeds at once (one a core; training/best_of_seeds.py keeps the team of the
# better own evaluation), then the evaluation beside the random, heuristic, search and shipped teams.
run: $(STAMP)
	$(BIN)/python -m training.best_of_seeds --config configs/train/ppo_tiny.yaml --run-dir $(RUN_DIR) --seeds 0 1 \
		--overwrite
	$(BIN)/python -m training.evaluate --config configs/tiny.yaml --games $(GAMES) --out $(RUN_DIR)/eval \
		--team random --team heuristic --team search --team policy:$(RUN_DIR)/best.pt \
		--team policy:agents/shipped/team.zip

# The SB3 MaskablePPO run that `make run` did before the native trainer: behaviour cloning, then PPO (4 minutes).
run-sb3: $(STAMP)
	$(BIN)/python -m training.train_ppo --config configs/train/default.yaml --run-dir runs/quickstart-sb3 --overwrite

# The baselines table (docs/baselines.md): native PPO, IPPO and MAPPO, 3 seeds, the four learnable presets, each
# team evaluated on 1,000 games beside random and heuristic; hours on 2 CPU cores (BASELINE_ARGS to narrow it).
BASELINE_ARGS ?=
baselines: $(STAMP)
	$(BIN)/python -m training.baselines --out runs/baselines $(BASELINE_ARGS)

# Longer: the curriculum over the learnable presets up to the full game (hours on a CPU).
train: $(STAMP)
	$(BIN)/python -m training.train_ppo --config configs/train/curriculum.yaml --run-dir runs/curriculum

# Every learnable preset, 1,000 seeded games per row.
eval: $(STAMP)
	$(BIN)/python -m training.evaluate --games 1000 --out runs/eval \
		--config configs/tiny.yaml --config configs/small.yaml --config configs/medium.yaml \
		--config configs/full.yaml --team random --team heuristic --team policy:agents/shipped/team.zip

# The search team and the clairvoyant ceiling on every learnable preset, 200 seeded games per row (about an hour on
# 2 CPU cores, most of it the search on the full game).
eval-search: $(STAMP)
	$(BIN)/python -m training.evaluate --games 200 --batch 200 --out runs/eval-search \
		--config configs/tiny.yaml --config configs/small.yaml --config configs/medium.yaml \
		--config configs/full.yaml --team search --team ceiling

# You play one caver beside three bot teammates on the tiny cave; SEED=.. ARGS="--human scout --delay 1" to vary.
SEED ?= 7
play: $(STAMP)
	$(BIN)/python -m subterra_game.play --config configs/tiny.yaml --seed $(SEED) $(ARGS)

# The browser table: installs what it needs, serves on http://127.0.0.1:8765/ and opens it; ARGS="--port 8000".
serve: $(STAMP)
	$(BIN)/python -m subterra_game.web --open $(ARGS)

# Everything: the main suite, then the RLlib tests in their own venv.
test: test-main test-rllib

test-main: $(STAMP)
	$(BIN)/python -m pytest

test-rllib: $(RLLIB_STAMP)
	$(RLLIB_VENV)/bin/python -m pytest tests/test_frameworks.py -k rllib

bench: $(STAMP)
	$(BIN)/python -m benchmarks.sps
	$(BIN)/python -m benchmarks.startup
	$(BIN)/python -m benchmarks.latency
	$(BIN)/python -m benchmarks.observe_cost

# The venvs and the compiled rules' numba caches (subterra_env/games/sub_terra/core/jit.py).
clean:
	rm -rf $(VENV) $(RLLIB_VENV) subterra_env/games/sub_terra/core/__nbcache__ "$${XDG_CACHE_HOME:-$$HOME/.cache}/subterra_env"
