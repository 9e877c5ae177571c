"""render_ansi / render_rgb: literal content on scenarios, no hidden information, and robustness in random play."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import play
from subterra_env import scenario
from subterra_env.config import TILE_TYPES, GameConfig
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import P_PLACE, RUNNING
from subterra_env.frames import FRAME_CELL, MEDAL_COLOURS, render_rgb
from subterra_env.palette import BACKGROUND, CAVER_COLOURS, HORROR_COLOUR, TYPE_CODES, TYPE_COLOURS, WALL_COLOUR
from subterra_env.render import render_ansi

SCENE = """
map:
  start:NESW   water:EW:~    gas:W
  .            horror:N
  .            ledge:NS:*r^
cavers: diver@0,0 scout@1,0:hp=2 medic@1,1:hp=0:hidden leader:dead
horrors: 1,1
stack: gas:L normal:I exit
deck: flood horror:x2 out-of-time
actor: scout
ap: 1
"""
BW, BH = 9, 5  # character block of one tile


def map_lines(text: str) -> list[str]:
    lines = text.splitlines()
    return lines[:next(i for i, line in enumerate(lines) if line.startswith("round "))]


def block(text: str, x: int, y: int) -> list[str]:
    """The 9 x 5 block of map cell x,y (the scenarios here have tiles in row 0 and column 0)."""
    lines = [line.ljust(200) for line in map_lines(text)]
    return [line[x * BW:(x + 1) * BW] for line in lines[y * BH:(y + 1) * BH]]


@pytest.fixture()
def scene():
    return scenario.build(SCENE)


def test_ansi_tile_blocks(scene):
    text = render_ansi(scene)
    assert len(map_lines(text)) == 3 * BH + 1  # three rows of tiles, then a blank line
    assert block(text, 0, 0) == ["###   ###", " STA     ", " 1       ", "         ", "###   ###"]
    assert block(text, 1, 0) == ["#########", " WAT~    ", " 2       ", "         ", "#########"]
    assert block(text, 2, 0) == ["#########", " GAS    #", "        #", "        #", "#########"]
    assert block(text, 1, 1) == ["###   ###", "#DEN    #", "#f      #", "#H      #", "#########"]
    assert block(text, 1, 2) == ["###   ###", "#LDG *r^#", "#       #", "#       #", "###   ###"]
    assert block(text, 0, 1) == [" " * BW] * BH  # empty cell
    assert "8" not in "".join(map_lines(text)) and "h" not in "".join(map_lines(text))  # devoured leader


def test_ansi_status_panel(scene):
    text = render_ansi(scene)
    assert "round 1 | turn: scout (seat 1) | AP 1 | exerted no | pending: none" in text
    assert "   seat 0: diver     rank 1 health 3/3  conscious" in text
    assert " > seat 1: scout     rank 2 health 2/3  conscious" in text
    assert "seat 2: medic     rank 6 health 0/3  unconscious, hidden" in text
    assert "seat 3: leader    rank 8 health 0/3  devoured" in text
    assert "hazard cards left 3 | last hazard: - | tiles left 3 | ropes left 6 | horrors 1 | " \
           "gas active no | out of time no" in text
    assert text.splitlines()[-1].startswith("legend: ")
    assert "result:" not in text


def test_ansi_last_card_exit_and_result(scene):
    st = scenario.build("""
map:
  start:NESW   exit:W
cavers: diver@1,0 scout@0,0
gas: on
out-of-time: on
""")
    st.last_card[0] = 6  # flood x2
    st.result[0], st.actor[0] = 2, -1
    text = render_ansi(st)
    assert "last hazard: flood x2" in text and "gas active yes | out of time yes" in text
    assert "seat 0: diver     rank 1 health 3/3  conscious, on exit" in text
    assert "result: silver" in text and "turn: - (game over)" in text
    assert block(text, 1, 0)[1:3] == [" EXT    #", " 1      #"]


def test_ansi_pending_tile_and_run():
    core = Core()
    st = scenario.build("""
map:
  start:NESW
cavers: diver@0,0 scout@0,0
stack: normal:L gas:I
""", core=core)
    play(core, st, "reveal E")
    assert "pending: placing a tile: normal (L) to the E, rotations " in render_ansi(st, cfg=core.cfg)
    st = scenario.build("""
map:
  start:NESW   normal:EW   normal:EW   normal:W
cavers: diver@0,0 scout@0,0
""", core=core)
    play(core, st, "run", "run step E")
    assert "pending: running (2 steps left, 1 taken)" in render_ansi(st)


def test_ansi_shows_no_hidden_order(scene):
    """Reordering the unseen stack and deck leaves the text unchanged; no upcoming card is named."""
    text = render_ansi(scene)
    assert "horror x2" not in text and "flood" not in text.split("legend:")[0]
    other = scene.copy()
    other.stack[0, -3:] = other.stack[0, -3:][::-1]
    other.deck[0, -3:-1] = other.deck[0, -3:-1][::-1]
    assert not np.array_equal(other.deck, scene.deck)
    assert render_ansi(other) == text
    assert np.array_equal(render_rgb(other), render_rgb(scene))


def test_rgb_scene(scene):
    cell = 24
    img = render_rgb(scene, cell=cell, status=False, legend=False)  # the bare map
    assert img.dtype == np.uint8 and img.shape == ((3 + 2) * cell, (3 + 2) * cell, 3)
    assert np.array_equal(img, render_rgb(scene, cell=cell, status=False, legend=False))  # deterministic
    assert (img[:cell] == BACKGROUND).all() and (img[:, :cell] == BACKGROUND).all()  # margin

    def px(x: int, y: int) -> np.ndarray:  # the cell of map cell x,y
        return img[(y + 1) * cell:(y + 2) * cell, (x + 1) * cell:(x + 2) * cell]

    colours = lambda a: {tuple(c) for c in a.reshape(-1, 3).tolist()}  # noqa: E731
    assert HORROR_COLOUR in colours(px(1, 1)) and HORROR_COLOUR not in colours(px(0, 0))
    assert HORROR_COLOUR not in colours(img[:, :2 * cell]) | colours(img[:, 3 * cell:])
    assert CAVER_COLOURS[1] in colours(px(0, 0)) and CAVER_COLOURS[2] in colours(px(1, 0))
    medic_dim = tuple(int(c * 0.4) for c in CAVER_COLOURS[6])
    assert medic_dim in colours(px(1, 1)) and CAVER_COLOURS[6] not in colours(img)
    assert CAVER_COLOURS[8] not in colours(img)  # devoured
    assert tuple(px(2, 0)[cell // 2, cell // 2]) == TYPE_COLOURS["gas"]
    assert tuple(px(1, 0)[cell // 2, cell // 2]) != TYPE_COLOURS["water"]  # flooded: tinted
    assert (px(2, 0)[:, -1] == WALL_COLOUR).all() and (px(2, 0)[cell // 2, 0] != WALL_COLOUR).any()
    assert tuple(px(0, 1)[cell // 2, cell // 2]) == BACKGROUND
    assert render_rgb(scene, cell=10, status=False, legend=False).shape == (50, 50, 3)


def _check_render(st, b: int) -> None:
    text = render_ansi(st, b)
    lines = map_lines(text)
    tiles = np.nonzero(st.t_type[b] >= 0)[0]
    w = int(np.ptp(st.t_x[b, tiles])) + 1
    h = int(np.ptp(st.t_y[b, tiles])) + 1
    assert len(lines) == h * BH + 1 and max(map(len, lines)) <= w * BW
    drawn = "".join(lines)
    assert sum(drawn.count(code) for code in TYPE_CODES.values()) == len(tiles) == st.n_tiles[b]
    for s in range(st.num_seats):
        if not st.c_dead[b, s]:
            assert (str(st.c_rank[b, s]) if st.c_hp[b, s] > 0 else "abcdefgh"[st.c_rank[b, s] - 1]) in drawn
    assert drawn.count("H") == (st.h_tile[b] >= 0).sum()
    assert ("result: " in text) == (st.result[b] != RUNNING)
    img = render_rgb(st, b, cell=12, status=False, legend=False)
    assert img.shape == ((h + 2) * 12, (w + 2) * 12, 3) and img.dtype == np.uint8


@pytest.mark.parametrize("settings", [{}, {"num_cavers": 6}, {"num_cavers": 5, "difficulty": "expert"}])
def test_random_play(settings):
    core = Core(GameConfig(**settings))
    st = core.init([0, 1, 2])
    for b in range(3):
        _check_render(st, b)
        assert "round 1 |" in render_ansi(st, b) and "last hazard: -" in render_ansi(st, b)
    rng = np.random.default_rng(5)
    for i in range(300):
        mask = core.legal_mask(st)
        core.step(st, np.argmax(rng.random(mask.shape) * mask, axis=1))
        for b in range(3):
            _check_render(st, b)
            if st.pend[b] == P_PLACE:
                kind = TILE_TYPES[core.cat.tile_type[st.pend_tile[b]]]
                assert f"pending: placing a tile: {kind} (" in render_ansi(st, b, cfg=core.cfg)
    assert (st.result != RUNNING).all()  # the games ended: the result line was checked too
    with pytest.raises(IndexError):
        render_ansi(st, 3)


def test_rgb_frame_has_a_status_strip_and_legend(scene):
    """The default frame (the env's rgb_array): 48-pixel tiles, then a status strip and a legend under the map."""
    bare = render_rgb(scene, status=False, legend=False)
    frame = render_rgb(scene)
    assert bare.shape[:2] == (5 * FRAME_CELL, 5 * FRAME_CELL)
    assert frame.shape[0] > bare.shape[0] + 150 and frame.shape[1] >= bare.shape[1]
    colours = lambda a: {tuple(c) for c in a.reshape(-1, 3).tolist()}  # noqa: E731
    strip = frame[bare.shape[0]:]
    for rank in (1, 2, 6, 8):  # a swatch per caver, dimmed when knocked out or devoured
        want = CAVER_COLOURS[rank] if rank in (1, 2) else tuple(int(c * 0.4) for c in CAVER_COLOURS[rank])
        assert want in colours(strip)
    assert all(TYPE_COLOURS[k] in colours(strip) for k in TILE_TYPES)  # the legend (the base game's types)
    assert not any(m in colours(frame) for m in MEDAL_COLOURS.values())  # no result yet
    over = scene.copy()
    over.result[0], over.actor[0] = 3, -1
    done = render_rgb(over)
    assert done.shape == frame.shape  # the result line is reserved: replay frames keep one size
    assert MEDAL_COLOURS["gold"] in colours(done)


def test_rgb_frame_fixed_box_and_players(scene):
    box = (int(scene.t_x[0].max()) - 4, int(scene.t_y[0, 0]), int(scene.t_x[0].max()) + 2, int(scene.t_y[0, 0]) + 3)
    img = render_rgb(scene, cell=32, bbox=box, players=["human", "heuristic", "random", "policy"],
                     caption="step 3/10: scout: move E")
    assert img.shape[1] >= (7 + 2) * 32 and img.dtype == np.uint8
    env = __import__("subterra_env").env(render_mode="rgb_array")
    env.reset(seed=1)
    first = env.render()
    assert first.shape[0] >= 3 * FRAME_CELL + 150 and first.shape[2] == 3


def test_text_legend_names_the_scenario_tiles_on_the_board():
    import numpy as np

    from subterra_env.config import GameConfig
    from subterra_env.games.sub_terra.core.catalogue import T_BOMB, T_ITEM
    from subterra_env.games.sub_terra.core.rules import Core
    from subterra_env.render import LEGEND, render_ansi

    st = Core(GameConfig()).init(np.array([0]))
    assert render_ansi(st, 0).splitlines()[-1] == LEGEND  # the base game: no scenario tile, no leaper
    st.t_type[0, 0] = T_ITEM  # the start tile drawn as an item tile, then a leaper on it
    st.l_tile[0, 0] = 0
    assert render_ansi(st, 0).splitlines()[-1] == LEGEND + " | ITM item tile (I: its item not yet drawn) | L leaper"
    st.t_type[0, 0] = T_BOMB
    st.l_tile[0, 0] = -1
    assert render_ansi(st, 0).splitlines()[-1] == LEGEND + " | BMB bomb tile (B: its bomb placed)"
