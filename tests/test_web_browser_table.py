"""The browser table of issue 42 in headless Chromium (Debian's chromium and chromedriver, as test_web_browser):
a person places a bomb at an Annihilation table by clicking its button; on a phone (390 px) the full cave zooms
to cells of 32 px or more and the person plays by clicking the zoomed board, with the bots explaining themselves
and a hint. Screenshots go to ``$SUBTERRA_ARTIFACTS`` (default ``test-artifacts/``)."""

# ruff: noqa: I001  (test_web_browser is imported before selenium: it skips the module where they are missing)
from __future__ import annotations

from pathlib import Path

import pytest

# first: it skips this module where chromium, chromedriver or selenium are missing (its own checks)
from test_web_browser import ARTIFACTS, FLAKY_DOM, POLL, decisions, one_click, result_shown, wait_for_the_click

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from web_client import serving

from subterra_game.records import load_record
from subterra_game.web.server import STORE

aiohttp = pytest.importorskip("aiohttp")


def make_table(drv, base: str, body: dict, open_it: bool = True) -> str:
    """A table made through the server's API from the page (as the form does), opened at seat 0's link."""
    doc = drv.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch('/api/tables', {method: 'POST', headers: {'Content-Type': 'application/json'},"
        " body: JSON.stringify(arguments[0])}).then(r => r.json()).then(done);", body)
    if not open_it:
        return doc["table"]
    drv.get(base + doc["seats"][0]["link"])
    WebDriverWait(drv, 60, POLL).until(lambda d: decisions(d) >= 0)
    return doc["table"]


# Two touches on the frame, ``a`` then ``b`` pixels apart (synthetic TouchEvents, as a phone sends them); returns
# the zoom level after.
PINCH = """
const [el, a, b] = arguments, r = el.getBoundingClientRect(), y = r.top + r.height / 2, x = r.left + r.width / 2;
const touches = (d) => [0, 1].map((i) => new Touch({identifier: i, target: el, clientX: x + (i ? d : -d) / 2,
                                                    clientY: y}));
const send = (type, d) => el.dispatchEvent(new TouchEvent(type, {touches: d === null ? [] : touches(d),
                                                                 cancelable: true, bubbles: true}));
send("touchstart", a); send("touchmove", b); send("touchend", null);
return el.dataset.zoom;
"""


def my_turn(drv) -> bool:
    WebDriverWait(drv, 120, POLL).until(lambda d: result_shown(d) or d.find_elements(By.CSS_SELECTOR, "#turn.yours"))
    return not result_shown(drv)


def test_a_person_places_a_bomb_in_chromium(browser, tmp_path: Path) -> None:
    """Annihilation, seed 4: the person clicks what the heuristic would do until "place bomb" is offered, then
    clicks that button (action 90, past the base game's 90 ids)."""
    drv = browser
    with serving(tmp_path) as (base, app):
        drv.get(base + "/")
        tid = make_table(drv, base, {"preset": "annihilation", "seed": 4, "delay": 0,
                                     "seats": ["human", "heuristic", "heuristic", "heuristic"]})
        for _ in range(200):
            assert my_turn(drv), "the game ended before a bomb could be placed"
            bomb = drv.find_elements(By.CSS_SELECTOR, '#actions button.action[data-name="place bomb"]')
            before = decisions(drv)
            if bomb:
                assert bomb[0].get_attribute("data-action") == "90"
                bomb[0].click()
                wait_for_the_click(drv, before, "place bomb")
                break
            session = app[STORE].get(tid).game.session
            action = int(session.bots[1].act(session.env, 0))  # the person thinks as the heuristic
            try:
                drv.find_element(By.CSS_SELECTOR, f'#actions button.action[data-action="{action}"]').click()
            except FLAKY_DOM:
                continue
            wait_for_the_click(drv, before, f"action {action}")
        else:
            raise AssertionError("place bomb was never offered")
        assert not drv.find_element(By.ID, "error").is_displayed()
        assert "bombs placed 1/" in drv.find_element(By.ID, "team").text
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        drv.save_screenshot(str(ARTIFACTS / "web_bomb.png"))
    rec = load_record(tmp_path / "records" / f"{tid}.json")
    assert [a["name"] for a in rec["actions"] if a["player"] == "human"][-1] == "place bomb"


def test_a_phone_plays_the_full_cave_zoomed(browser, tmp_path: Path) -> None:
    """390 px wide: a whole full cave (a bots' game played out) is zoomed from its fit to cells of at least 32 px;
    at a table of its own the person plays forty decisions by clicking the zoomed board and the buttons, the bots'
    intents show under their cavers and a hint names one of the legal actions."""
    drv = browser
    drv.set_window_size(390, 844)
    clicks: dict[str, int] = {}
    hint = None
    with serving(tmp_path) as (base, app):
        drv.get(base + "/")
        whole = make_table(drv, base, {"preset": "full", "seed": 9, "delay": 0, "seats": ["heuristic"] * 4},
                           open_it=False)
        make_table(drv, base, {"preset": "full", "seed": 9, "delay": 0, "seats": ["human", "search", "heuristic",
                                                                                  "heuristic"]})
        drv.find_element(By.ID, "zoom-in").click()
        drv.find_element(By.ID, "zoom-in").click()
        for n in range(40):  # forty decisions of the person at the zoomed board
            if not my_turn(drv):
                break
            if hint is None and n >= 6 and drv.find_elements(By.CSS_SELECTOR, "#team td.intent"):
                drv.find_element(By.ID, "hint-button").click()
                WebDriverWait(drv, 60, POLL).until(lambda d: d.find_element(By.ID, "hint").is_displayed())
                hint = drv.find_element(By.ID, "hint").text
                hinted = drv.find_elements(By.CSS_SELECTOR, "#actions button.action.hinted")
                intents = [e.text for e in drv.find_elements(By.CSS_SELECTOR, "#team td.intent")]
                ARTIFACTS.mkdir(parents=True, exist_ok=True)
                drv.save_screenshot(str(ARTIFACTS / "web_phone_full.png"))
            before = decisions(drv)
            try:
                how = one_click(drv, n)
            except FLAKY_DOM:
                continue
            try:
                wait_for_the_click(drv, before, how)
            except AssertionError:
                drv.save_screenshot(str(ARTIFACTS / "web_phone_failed.png"))
                raise
            clicks[how] = clicks.get(how, 0) + 1
        too_wide = drv.execute_script(
            "return [...document.querySelectorAll('body *')].filter(e => !e.closest('#board-wrap') && "
            "e.getBoundingClientRect().right > window.innerWidth + 1).map(e => e.tagName + '#' + e.id).slice(0, 8)")
        WebDriverWait(drv, 120, POLL).until(lambda d: app[STORE].get(whole).game.over)
        drv.get(f"{base}/table/{whole}")  # the whole cave, watched
        WebDriverWait(drv, 60, POLL).until(lambda d: result_shown(d))
        wrap = drv.find_element(By.ID, "board-wrap")
        fit_px = float(wrap.get_attribute("data-cell-px"))
        for _ in range(5):
            if float(wrap.get_attribute("data-cell-px")) >= 32:
                break
            drv.find_element(By.ID, "zoom-in").click()
        zoomed_px = float(wrap.get_attribute("data-cell-px"))
        zoom = wrap.get_attribute("data-zoom")
        drv.save_screenshot(str(ARTIFACTS / "web_phone_cave_zoomed.png"))
        pinched = drv.execute_script(PINCH, wrap, 100, 140)  # two fingers spread: one step in
        pinched += "," + drv.execute_script(PINCH, wrap, 140, 100)  # and pinched: one step out
    assert fit_px < 32 <= zoomed_px, (fit_px, zoomed_px)
    levels = [float(z) for z in pinched.split(",")]
    assert levels[0] > float(zoom) and levels[1] == float(zoom), (zoom, levels)
    assert clicks.get("cell", 0) + clicks.get("cell+popover", 0) > 0, clicks
    assert hint.startswith("Hint (search bot): ") and len(hinted) == 1, hint
    assert len(intents) == 3 and all(t.startswith("\u203a ") for t in intents), intents
    assert " · best: " in intents[0]  # the search bot's seat (1) gives its best two actions with their values
    assert too_wide == [], too_wide


def click_action(drv, action: int) -> str:
    """Click ``action`` where a person would: its turning of the drawn tile, its cell on the (zoomed) board (and
    its entry in the pop-up when the cell holds several), else its button."""
    rot = drv.find_elements(By.CSS_SELECTOR, f'#board g.rotation[data-action="{action}"]')
    if rot:
        rot[0].click()
        return "rotation"
    for cell in drv.find_elements(By.CSS_SELECTOR, "#board rect.target"):
        if str(action) in cell.get_attribute("data-actions").split():
            cell.click()
            pop = drv.find_elements(By.CSS_SELECTOR, f'#popover:not([hidden]) button[data-action="{action}"]')
            if pop:
                pop[0].click()
                return "cell+popover"
            return "cell"
    drv.find_element(By.CSS_SELECTOR, f'#actions button.action[data-action="{action}"]').click()
    return "button"


def test_a_whole_full_game_at_phone_width_zoomed(browser, tmp_path: Path) -> None:
    """A person plays a whole full-cave game at 390 px with the board zoomed to 32 px cells or more, clicking what
    the heuristic would choose where a person would click it; the page's result is the record's."""
    drv = browser
    drv.set_window_size(390, 844)
    clicks: dict[str, int] = {}
    with serving(tmp_path) as (base, app):
        drv.get(base + "/")
        tid = make_table(drv, base, {"preset": "full", "seed": 12, "delay": 0,
                                     "seats": ["human", "heuristic", "heuristic", "heuristic"]})
        wrap = drv.find_element(By.ID, "board-wrap")
        for _ in range(1500):
            if not my_turn(drv):
                break
            while float(wrap.get_attribute("data-cell-px")) < 32:  # the cave grows: zoom in as it does
                drv.find_element(By.ID, "zoom-in").click()
            session = app[STORE].get(tid).game.session
            action = int(session.bots[1].act(session.env, 0))
            before = decisions(drv)
            try:
                how = click_action(drv, action)
            except FLAKY_DOM:
                continue
            wait_for_the_click(drv, before, how)
            clicks[how] = clicks.get(how, 0) + 1
        else:
            raise AssertionError("the game did not end")
        shown = drv.find_element(By.ID, "result").get_attribute("data-result")
        px = float(wrap.get_attribute("data-cell-px"))
        drv.save_screenshot(str(ARTIFACTS / "web_phone_full_game.png"))
    rec = load_record(tmp_path / "records" / f"{tid}.json")
    people = [a for a in rec["actions"] if a["player"] == "human"]
    assert rec["result"]["finished"] and shown == rec["result"]["name"]
    assert sum(clicks.values()) == len(people) and clicks.get("cell", 0) + clicks.get("cell+popover", 0) > 0, clicks
    assert px >= 32
