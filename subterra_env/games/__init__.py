"""The games of the package, a folder each: ``sub_terra/`` (``core/``, the compiled rules; ``game.py``, its ``Game``
of the episode layer) and ``in_the_cave/`` (its settings, compiled ``core/``, ``game.py``, observation writer,
invariants and positions). ``registry.make(name)`` (also ``subterra_env.make``) gives any of them by name, as Pgx's
``make``. The episode layer, the shared ``Game`` protocol and the environments sit above, in ``subterra_env/``
(In the Cave's envs in ``subterra_env.in_the_cave``). This ``__init__`` imports nothing: every module of a game
passes through it, so it must not reach back up (tests/test_layers.py)."""
