"""The browser table (``subterra serve``): a web server where people and bots play Sub Terra together.

It imports the env and the game app's session layer (``session.Session``, ``seats``, ``bots``, ``narrate``,
``records``; In the Cave's ``in_the_cave.session``), never the command line (``play``); nothing in the env imports
it. ``server`` (aiohttp routes and the websocket), ``tables`` (games, seats, tokens, saving and resuming),
``protocol`` (what a client may send), ``view`` (what the page draws), ``static/`` (the page).
"""
