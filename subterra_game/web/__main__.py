"""``python -m subterra_game.web``: the same as ``subterra serve``."""

import sys

from .server import serve_main

sys.exit(serve_main(sys.argv[1:]))
