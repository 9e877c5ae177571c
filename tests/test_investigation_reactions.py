"""Investigation's Gas Mask as its holder's decision: the setting ``explicit_reactions`` (RULES_VAR.md R-INV-5,
R-INV-18; ``subterra_env/games/sub_terra/core/reactions.py``). Gas about to hurt the holder pauses the resolution: the holder acts,
answers "use gas mask" or "decline gas mask" knowing the health at stake, and the resolution then goes on as the
automatic rule's would. Maps as in test_investigation.py (cells ``column,row``; ``items=`` held; ``gas: on`` entering
damage active; one Gas Mask exists, R-INV-2, so one holder at most is asked).
"""

from __future__ import annotations

import numpy as np
import pytest

import subterra_env
from helpers import Game, scene
from subterra_env.config import preset
from subterra_env.games.sub_terra.core.actions import A_GAS_MASK_DECLINE, A_GAS_MASK_USE, ACTION_NAMES, num_actions
from subterra_env.games.sub_terra.core.catalogue import I_ARMOR, I_GAS_MASK, ITEM_NAMES, NUM_ITEMS
from subterra_env.games.sub_terra.core.invariants import check_invariants, snapshot
from subterra_env.games.sub_terra.core.observe import scalars_of
from subterra_env.games.sub_terra.core.reactions import REACT_ENTER, REACT_HAZARD
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import P_NONE, P_PLACE, P_RUN, REACTION_FIELDS
from subterra_env.events import decode, set_logging
from random_play import random_legal

ANSWERS = {"use gas mask", "decline gas mask"}


def react(*rows: str, settings: dict | None = None, **keys) -> Game:
    """An Investigation map with explicit_reactions on (``settings``: more GameConfig keys), the event log on."""
    g = Game(scene(*rows, **keys), scenario="investigation", explicit_reactions=True, **(settings or {}))
    set_logging(g.st, slice(None), True)
    return g


def held(g: Game, name: str) -> list[str]:
    bits = int(g.st.c_items[0, g.seat(name)])
    return [ITEM_NAMES[i] for i in range(NUM_ITEMS) if (bits >> i) & 1]


def is_out(g: Game, item: int) -> bool:
    return bool((int(g.st.i_out[0]) >> item) & 1)


def events(g: Game, *names: str) -> list[tuple]:
    return [(e.kind, e.seat, e.value, e.rule, e.die) for e in decode(g.st) if e.kind in names]


def asked(g: Game) -> str | None:
    """The caver asked about its Gas Mask now (None: no decision pending)."""
    s = int(g.st.r_seat[0])
    return None if s < 0 else g.actor()


# ---------------------------------------------------------------------------------------------- a Gas card
GAS_CARD = ("start:E gas:W",)


def test_a_gas_card_asks_the_holder_before_anyone_is_hurt_then_a_decline_keeps_the_mask():  # R-INV-18, R-INV-5
    """The holder is asked off-turn, in the hazard phase, with the health at stake; a decline keeps the mask and
    lets the gas through (Body Armor still takes its point, R-INV-17); the others on gas are hurt after the answer,
    and the round ends as without the setting."""
    g = react(*GAS_CARD, cavers="diver@1,0:items=gas-mask,body-armor leader@1,0 medic@0,0", deck="gas", ap="0")
    g.play("end turn", "end turn", "end turn")  # the last End turn runs the round end: paused on the Gas card
    assert asked(g) == "diver" and g.legal() == ANSWERS and int(g.st.r_lose[0]) == 2
    assert g.hp() == {"diver": 3, "leader": 3, "medic": 3} and int(g.st.round[0]) == 1  # nobody hurt yet
    assert events(g, "card") == [("card", -1, 3, "R-RND-1", 0)]  # the Gas card was drawn in that step
    g.play("decline gas mask")
    assert g.hp() == {"diver": 2, "leader": 1, "medic": 3}  # the armor took the diver's first point
    assert held(g, "diver") == ["gas mask"] and is_out(g, I_ARMOR) and not is_out(g, I_GAS_MASK)
    assert events(g, "reaction", "item_use") == [("reaction", 0, 0, "R-INV-18", 2), ("item_use", 0, I_ARMOR, "R-INV-17", 0)]
    assert int(g.st.round[0]) == 2 and g.actor() == "leader" and asked(g) is None  # the next round's first turn
    assert all(int(getattr(g.st, f)[0]) == v for f, v in (("r_hurt", 0), ("r_lose", 0), ("r_no", 0), ("r_actor", -1)))


def test_doom_doubles_the_gas_at_stake_and_a_used_mask_takes_all_of_it():  # R-INV-18, R-INV-3
    g = react(*GAS_CARD, cavers="diver@1,0:items=gas-mask leader@1,0 medic@0,0", deck="gas", ap="0", doom="on")
    g.play("end turn", "end turn", "end turn")
    assert asked(g) == "diver" and int(g.st.r_lose[0]) == 4  # Gas x2 under Doom: one loss of 4
    g.play("use gas mask")
    assert g.hp() == {"diver": 3, "leader": 0, "medic": 3} and held(g, "diver") == [] and is_out(g, I_GAS_MASK)
    assert events(g, "reaction", "item_use") == [("reaction", 0, 1, "R-INV-18", 4),
                                                 ("item_use", 0, I_GAS_MASK, "R-INV-18", 0)]


def test_gas_mask_keeps_and_yes_loses_one_and_keeps_the_card():  # R-INV-18 setting gas_mask_keeps
    for answer, hp in (("use gas mask", 2), ("decline gas mask", 1)):
        g = react(*GAS_CARD, cavers="diver@1,0:items=gas-mask leader@0,0", deck="gas", ap="0",
                  settings={"gas_mask_keeps": True})
        g.play("end turn", "end turn")
        assert asked(g) == "diver" and int(g.st.r_lose[0]) == 2
        g.play(answer)
        assert g.hp("diver") == hp and held(g, "diver") == ["gas mask"]


# ---------------------------------------------------------------------------------------------- who is not asked
def test_a_protected_or_unconscious_holder_is_not_asked():  # R-INV-18, R-INV-6 (base protections first)
    g = react(*GAS_CARD, cavers="diver@1,0:items=gas-mask bodyguard@1,0 leader@0,0", deck="gas", ap="0")
    g.play("end turn", "end turn", "end turn")  # the Bodyguard's Protector shields the diver: no decision
    assert asked(g) is None and int(g.st.round[0]) == 2
    assert g.hp("diver") == 3 and held(g, "diver") == ["gas mask"] and g.hp("bodyguard") == 3
    g = react(*GAS_CARD, cavers="diver@1,0:hp=0:items=gas-mask leader@0,0", deck="gas", ap="0",
              actor="leader", start="leader")
    g.play("end turn")  # a caver at 0 health loses nothing more: not asked, the mask kept
    assert asked(g) is None and int(g.st.round[0]) == 2 and held(g, "diver") == ["gas mask"]
    g = react(*GAS_CARD, cavers="diver@0,0:items=gas-mask bodyguard@1,0", gas="on")
    g.play("move E")  # entering the Bodyguard's tile: protected on arrival
    assert asked(g) is None and g.hp("diver") == 3 and held(g, "diver") == ["gas mask"]


def test_a_mask_that_would_change_nothing_is_not_offered():  # R-INV-18: gas_mask_keeps and 1 damage
    g = react(*GAS_CARD, cavers="diver@0,0:items=gas-mask leader@0,0", gas="on",
              settings={"gas_mask_keeps": True, "gas_enter_damage": 1})
    g.play("move E")  # lose 1 with the mask or without it: it filters by itself, as without the setting
    assert asked(g) is None and g.hp("diver") == 2 and held(g, "diver") == ["gas mask"]


# ---------------------------------------------------------------------------------------------- entering gas
RUN_MAP = ("start:E gas:EW normal:EW normal:W",)


@pytest.mark.parametrize("answer, hp, mask", [("use gas mask", 3, []), ("decline gas mask", 1, ["gas mask"])])
def test_entering_gas_mid_run_asks_the_mover_and_the_run_goes_on(answer, hp, mask):  # R-INV-18, R-ACT-8
    g = react(*RUN_MAP, cavers="diver@0,0:items=gas-mask leader@0,0", gas="on")
    g.play("run", "run step E")
    assert asked(g) == "diver" and g.legal() == ANSWERS and g.hp("diver") == 3 and g.pos("diver") == (1, 0)
    assert int(g.st.pend[0]) == P_RUN and (int(g.st.run_left[0]), int(g.st.run_taken[0])) == (2, 1)  # kept
    g.play(answer)
    assert g.hp("diver") == hp and held(g, "diver") == mask
    assert g.actor() == "diver" and g.legal() == {"run step E", "run step W", "stop"}  # the run's next step
    g.play("run step E", "run step E")
    assert g.pos("diver") == (3, 0) and int(g.st.pend[0]) == P_NONE and g.hp("diver") == hp


def test_explore_onto_a_new_gas_tile_waits_for_the_answer():  # R-INV-18, R-ACT-7
    g = react("start:E", cavers="diver@0,0:items=gas-mask leader@0,0", stack="gas:I normal:4 normal:4", gas="on")
    g.play("explore E")
    if int(g.st.pend[0]) == P_PLACE:  # the straight tile's two rotations open the same sides
        g.play(sorted(n for n in g.legal() if n.startswith("rotate"))[0])
    assert asked(g) == "diver" and g.pos("diver") == (1, 0) and int(g.st.n_tiles[0]) == 2
    g.play("decline gas mask")
    assert g.hp("diver") == 1 and g.actor() == "diver" and g.ap == 1 and "end turn" in g.legal()


def test_a_directed_or_boosted_move_onto_gas_asks_the_mover_then_the_turn_goes_back():  # R-INV-18, R-CAV-8, R-INV-8
    g = react(*GAS_CARD, cavers="leader@0,0 diver@0,0:items=gas-mask", gas="on")
    g.play("direct caver 1", "move E")
    assert asked(g) == "diver" and int(g.st.directing[0]) == 0  # the Leader's Direct waits
    g.play("use gas mask")
    assert g.hp("diver") == 3 and g.actor() == "leader" and g.ap == 1 and int(g.st.directing[0]) == -1
    g = react(*GAS_CARD, cavers="leader@0,0:items=signal-booster diver@0,0:items=gas-mask", gas="on")
    g.play("signal booster caver 1", "move E")
    assert asked(g) == "diver"
    g.play("decline gas mask")
    assert g.hp("diver") == 1 and g.actor() == "leader" and g.ap == 2 and held(g, "diver") == ["gas mask"]


def test_the_last_move_of_a_round_onto_gas_then_a_gas_card_asks_twice():  # R-INV-18: both pauses in one round end
    """An exerted caver spends its last AP entering gas: the answer's step ends the turn and the round, whose Gas
    card asks the same holder again (standing on gas now)."""
    g = react(*GAS_CARD, cavers="diver@0,0:items=gas-mask,body-armor", gas="on", deck="gas", ap="1", exerted="yes",
              dice="6")
    g.play("move E")
    assert asked(g) == "diver" and int(g.st.r_lose[0]) == 2
    g.play("decline gas mask")  # the armor takes a point; the exert check (6) passes; the round ends: the Gas card
    assert asked(g) == "diver" and g.hp("diver") == 2 and int(g.st.round[0]) == 1
    g.play("use gas mask")
    assert g.hp("diver") == 2 and held(g, "diver") == [] and int(g.st.round[0]) == 2 and g.actor() == "diver"


# ---------------------------------------------------------------------------------------------- the default
def test_without_the_setting_the_mask_fires_by_itself_and_use_plays_the_same_game():  # R-INV-5 [default], R-INV-18
    """The same game without the setting never offers the answers; with it, answering "use" every time reaches the
    same state (one decision more), for a Gas card and for entering gas."""
    text = scene(*RUN_MAP, cavers="diver@0,0:items=gas-mask,body-armor leader@1,0 medic@0,0", gas="on", deck="gas")
    games = [Game(text, scenario="investigation", explicit_reactions=on) for on in (False, True)]
    script = ["run", "run step E", "run step W", "stop", "end turn", "end turn", "end turn"]  # the Gas card: leader
    for game in games:
        for name in script:
            if game.st.r_seat[0] >= 0:
                game.play("use gas mask")
            game.play(name)
        assert not game.core.legal_mask(game.st)[0, A_GAS_MASK_USE:].any()
    off, on = games
    assert int(on.st.steps[0]) == int(off.st.steps[0]) + 1 and off.hp() == on.hp() == {
        "diver": 3, "leader": 1, "medic": 3}
    a, b = off.st.copy(), on.st.copy()
    b.steps[0] = a.steps[0]
    assert a.equals(b)


# ---------------------------------------------------------------------------------------------- the env
MAP = """map:
  start:E  gas:W
cavers: medic@0,0 diver@1,0:items=gas-mask leader@1,0 scout@0,0
deck: gas
ap: 0
"""


def test_the_env_hands_the_decision_to_the_holder_and_shows_it():  # R-INV-18, R-INV-5
    env = subterra_env.env(scenario="investigation", explicit_reactions=True, agent_names="seat", obs_radius=2,
                           record_events=True)
    env.reset(seed=0, options={"scenario": MAP})
    assert env.action_space("caver_0").n == num_actions("investigation") == 154
    names = scalars_of("investigation")
    asked_i, lose_i = names.index("gas mask decision: asked offset+1"), names.index("gas mask decision: health at stake")
    for _ in range(4):
        env.step(0)  # end turn (medic, diver, leader, scout); the last ends the round: the Gas card
    assert env.agent_selection == "caver_1" and int(env.state_.round[0]) == 1  # the diver, off-turn
    obs = env.observe("caver_1")
    assert np.flatnonzero(obs["action_mask"]).tolist() == [A_GAS_MASK_USE, A_GAS_MASK_DECLINE]
    assert (obs["scalars"][asked_i], obs["scalars"][lose_i]) == (1, 2)
    other = env.observe("caver_0")["scalars"]
    assert (other[asked_i], other[lose_i]) == (2, 2) and not env.observe("caver_0")["action_mask"].any()
    env.step(A_GAS_MASK_DECLINE)
    assert int(env.state_.round[0]) == 2 and env.agent_selection == "caver_1"  # round 2 starts with the diver
    assert [(e.kind, e.value) for e in env.last_events if e.kind == "reaction"] == [("reaction", 0)]
    assert env.observe("caver_1")["scalars"][asked_i] == 0 and int(env.state_.c_hp[0, 1]) == 1


@pytest.mark.parametrize("cavers", [4, 6])
def test_random_games_with_the_setting_keep_every_invariant(cavers):  # R-INV-18 with the invariant checker
    """Random legal play with every item dealt round the table (the Gas Mask in play from the start), every
    invariant checked after every step (the pending decision's own among them): every game ends, both answers
    were given, on Gas cards and on entering gas."""
    cfg = preset("investigation", num_cavers=cavers, difficulty="advanced", explicit_reactions=True)
    core = Core(cfg)
    st = core.init(np.arange(64))
    for b in range(64):
        for k in range(NUM_ITEMS):
            st.c_items[b, k % cavers] |= 1 << int(st.i_deck[b, k])
        st.i_pos[b] = NUM_ITEMS
    rng = np.random.default_rng(5)
    check_invariants(cfg, None, st, core.legal_mask(st))
    answered, paused = np.zeros(2, dtype=np.int64), set()
    for _ in range(800):
        mask = core.legal_mask(st)
        if not mask.any():
            break
        pick = random_legal(mask, rng)
        answered += [int((pick[mask[:, A_GAS_MASK_USE]] == a).sum()) for a in (A_GAS_MASK_USE, A_GAS_MASK_DECLINE)]
        paused |= {int(r) for r in st.r_from[st.r_seat >= 0]}
        before = snapshot(st)
        core.step(st, pick)
        check_invariants(cfg, before, st, core.legal_mask(st))
    assert (st.result >= 0).all()
    assert (answered > 0).all() and paused == {REACT_HAZARD, REACT_ENTER}, (answered, paused)


def test_the_reaction_fields_enter_the_state_hash_only_while_pending():  # R-INV-18: hashes of other states unchanged
    from subterra_game.records import state_hash
    from subterra_env.games.sub_terra.core.state import scenario_hash_fields

    g = react(*GAS_CARD, cavers="diver@1,0:items=gas-mask leader@0,0", deck="gas", ap="0")
    assert not set(REACTION_FIELDS) & set(scenario_hash_fields(g.st, 0))
    g.play("end turn", "end turn")
    assert scenario_hash_fields(g.st, 0)[-len(REACTION_FIELDS):] == REACTION_FIELDS
    paused = state_hash(g.st)
    g.st.r_lose[0] = 3
    assert state_hash(g.st) != paused
    assert [ACTION_NAMES[a] for a in (A_GAS_MASK_USE, A_GAS_MASK_DECLINE)] == ["use gas mask", "decline gas mask"]


# ---------------------------------------------------------------------------------------------- telling it
def test_narration_the_terminal_menu_and_title_tell_the_decision():  # R-INV-18
    from rich.console import Console

    from subterra_game.game_loop import play_session
    from subterra_game.seats import seat_plan
    from subterra_game.session import Session
    from subterra_game.narrate import describe_action, narrate, pending_text
    from subterra_game.tui import menu_panel
    from subterra_game.web.view import board_view

    env = subterra_env.env(scenario="investigation", explicit_reactions=True, record_events=True, render_mode="ansi")
    env.reset(seed=0, options={"scenario": MAP})
    for _ in range(3):
        env.step(0)
    before = env.state_.copy()
    env.step(0)
    core, st = env.core, env.state_
    assert "pending: Gas Mask: the gas would take 2 health: use the mask or not" in env.render()  # the text board
    lines = [e.text for e in narrate(core, before, st, 0)]
    assert lines[-1] == "the gas would take 2 health from the diver: use the GAS MASK? (R-INV-18)"
    assert pending_text(core, st) == "Gas Mask: the gas would take 2 health: use the mask or not"
    assert describe_action(core, st, A_GAS_MASK_USE) == "use gas mask: lose no health instead of 2 (the card is spent)"
    assert describe_action(core, st, A_GAS_MASK_DECLINE) == "decline gas mask: keep the mask and take 2 gas damage"
    console = Console(record=True, width=160)
    console.print(menu_panel(core, st, [A_GAS_MASK_USE, A_GAS_MASK_DECLINE], "title", 150))
    text = console.export_text()
    assert "use gas mask" in text and "decline gas mask" in text
    view = board_view(core, st, env.legal_mask, ["a", "b", "c", "d"], set(), 200)  # the browser table
    assert [a["name"] for a in view["legal"]] == ["use gas mask", "decline gas mask"]
    assert view["team"]["pending"] == "Gas Mask: the gas would take 2 health: use the mask or not"
    before = st.copy()
    env.step(A_GAS_MASK_USE)
    lines = [e.text for e in narrate(core, before, env.state_, A_GAS_MASK_USE)]
    assert lines[:3] == ["diver: use gas mask", "diver puts on the GAS MASK against 2 gas damage (R-INV-18)",
                         "diver uses the GAS MASK (R-INV-18)"]

    class Asked(Exception):
        pass

    class Person:  # the terminal's seat loop with a person at every seat: what its menu offers, with what title
        def __init__(self):
            self.asked: list[tuple[str, list[str]]] = []

        def add_events(self, evs):
            return list(evs)

        def choose(self, session, legal, title):
            self.asked.append((title, [ACTION_NAMES[a] for a in legal]))
            if A_GAS_MASK_USE in legal:
                raise Asked
            return 0  # end turn

    s = Session(preset("investigation", explicit_reactions=True), 0,
                seat_plan("human,human,human,human", [], "heuristic", False))
    s.env.reset(options={"scenario": MAP})
    person = Person()
    with pytest.raises(Asked):
        play_session(s, person, interactive=False)
    assert len(person.asked) == 5 and person.asked[-1] == (
        "person 2: the DIVER (seat 1) holds the GAS MASK · the gas would take 2 health: use the mask?",
        ["use gas mask", "decline gas mask"])
