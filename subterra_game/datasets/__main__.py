"""``python -m subterra_game.datasets build | from-records | check ...`` (as ``subterra dataset ...``)."""

import sys

from .cli import main

sys.exit(main(sys.argv[1:]))
