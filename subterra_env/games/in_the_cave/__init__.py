"""In the Cave's rules (RULES_ITC.md): its settings (``config``), compiled core (``core/``), its ``Game`` of the
shared episode layer (``game.InTheCave``), its observation writer, invariants and scenario positions. Its
environments (PettingZoo AEC, vector) sit above the episode layer, in ``subterra_env.in_the_cave``."""
