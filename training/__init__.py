"""Training and evaluation scripts for Sub Terra and In the Cave, one module each, run from the repository root as
``python -m training.<script>`` (``make run``, ``make eval``, ``make baselines``): the native PPO trainer (``ppo``)
and its ``baselines`` table and Optuna study (``tune``); sb3-contrib MaskablePPO with behaviour cloning
(``train_ppo``, ``bc``), RLlib (``train_rllib``), TorchRL (``train_torchrl``) and In the Cave (``train_itc_ppo``,
``itc_selfplay``); seeded evaluation (``evaluate`` with ``eval_agents``, ``eval_report``, ``eval_losses``) and paired
comparison (``compare``); the search's value net, distillation and gain head (``fit_value``, ``distil``,
``distil_probe``, ``set_head``, ``search_headroom``, ``replay_search``), the heuristic's weights (``tune_heuristic``),
learning curves (``plot_curve``); and what the trainers share: typed settings (``schema``) and run files
(``run_files``). training/README.md has the table and the commands."""
