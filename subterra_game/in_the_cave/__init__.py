"""In the Cave in the game app: ``session`` (one game at a table: env, seats, bots, record; what the browser
tables share), ``play`` (``subterra itc``: the terminal around a session), ``records``, ``replay`` and ``screen``
(the terminal's text and narration). The rules and the env are ``subterra_env.in_the_cave``."""
