"""The browser table in a real browser: Debian's headless chromium, driven by Selenium through Debian's
chromedriver (never a downloaded browser). A person opens the page, starts a tiny-cave table with one human seat
and three heuristic bots, plays the whole game by clicking (cells on the board, the tile's turnings, the action
buttons; ``e`` ends a turn from the keyboard), and the page's result is the one the saved record replays to.

Screenshots (desktop and phone size) go to ``$SUBTERRA_ARTIFACTS`` (default ``test-artifacts/``)."""

from __future__ import annotations

import os
import time
import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
if not (Path(CHROMIUM).is_file() and Path(CHROMEDRIVER).is_file()):
    pytest.skip("no chromium / chromedriver here: apt-get install -y chromium chromium-driver (.ci/run does)",
                allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is in the dev extra: pip install -e '.[dev]'")

from selenium.common.exceptions import (
    ElementClickInterceptedException,
    ElementNotInteractableException,
    StaleElementReferenceException,
    TimeoutException,
)
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait
from web_client import serving

from subterra_game.records import load_record, replay_record

ARTIFACTS = Path(os.environ.get("SUBTERRA_ARTIFACTS", Path(__file__).resolve().parent.parent / "test-artifacts"))
POLL = 0.05  # seconds between looks at the page while waiting for the server's answer
FLAKY_DOM = (StaleElementReferenceException, ElementClickInterceptedException, ElementNotInteractableException)


def open_chromium():
    """Headless Chromium through its chromedriver, the window at 1280 x 900 (tests resize it); the ``browser``
    fixture (tests/conftest.py) quits it after the test."""
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,900"):
        opts.add_argument(arg)
    return webdriver.Chrome(options=opts, service=webdriver.ChromeService(executable_path=CHROMEDRIVER))


def decisions(drv) -> int:
    return int(drv.find_element(By.ID, "game").get_attribute("data-decisions") or -1)


def result_shown(drv) -> bool:
    return drv.find_element(By.ID, "result").is_displayed()


def wait_for_the_click(drv, before: int, how: str) -> None:
    """Wait until the decision count moved on from ``before`` (or the game ended); else fail with what the page's
    error line says about the click ``how``."""
    try:
        WebDriverWait(drv, 30, POLL).until(lambda d: decisions(d) != before or result_shown(d))
    except TimeoutException:
        err = drv.find_element(By.ID, "error")
        raise AssertionError(f"the click ({how}) changed nothing; page says: {err.text!r}") from None


def one_click(drv, n: int, passive: tuple[str, ...] = ("end turn",), first: str | None = None) -> str:
    """The person's ``n``-th decision, by clicking what the page offers: a turning of the drawn tile, else the
    button ``first`` every third time it is offered (In the Cave's reveal), else a highlighted cell (choosing in its
    pop-up when several actions point there), else an action button that is not ``passive`` nor a discard (every
    other time by its number key), else end turn by its key ``e``. Returns what was done."""
    rot = drv.find_elements(By.CSS_SELECTOR, "#board g.rotation")
    if rot:
        rot[0].click()
        return "rotation"
    buttons = drv.find_elements(By.CSS_SELECTOR, "#actions button.action")
    names = [b.get_attribute("data-name") for b in buttons]  # the action's id name (the label is in words)
    if first in names and n % 3 == 0:
        buttons[names.index(first)].click()
        return first
    cells = drv.find_elements(By.CSS_SELECTOR, "#board rect.target")
    if cells:
        cells[0].click()
        pop = drv.find_elements(By.CSS_SELECTOR, "#popover:not([hidden]) button.action")
        if pop:
            pop[0].click()
            return "cell+popover"
        return "cell"
    others = [b for b, nm in zip(buttons, names) if nm not in passive and not nm.startswith("discard_")]
    if others and n % 2:
        key = others[0].find_element(By.TAG_NAME, "kbd").text.strip()
        if key:
            drv.find_element(By.TAG_NAME, "body").send_keys(key)
            return "key 1-9"
    if others:
        others[0].click()
        return "button"
    drv.find_element(By.TAG_NAME, "body").send_keys("e")
    return "key e"


def test_a_person_plays_a_tiny_game_in_chromium(browser, tmp_path: Path) -> None:
    drv = browser
    with serving(tmp_path) as (base, _app):
        drv.get(base + "/")
        wait = WebDriverWait(drv, 60)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#preset option"))
        Select(drv.find_element(By.ID, "preset")).select_by_value("tiny")
        drv.find_element(By.ID, "seed").send_keys("7")
        delay = drv.find_element(By.ID, "delay")
        delay.clear()
        delay.send_keys("0")
        assert Select(drv.find_element(By.ID, "seat-0")).first_selected_option.get_attribute("value") == "human"
        assert [Select(drv.find_element(By.ID, f"seat-{i}")).first_selected_option.get_attribute("value")
                for i in (1, 2, 3)] == ["heuristic"] * 3
        drv.find_element(By.ID, "create").click()
        wait.until(lambda d: "/table/" in d.current_url and decisions(d) >= 0)
        assert "token" not in drv.current_url  # the seat's key leaves the address bar
        table_id = drv.current_url.rsplit("/", 1)[1]

        done: dict[str, int] = {}
        for _ in range(400):
            WebDriverWait(drv, 60, POLL).until(lambda d: result_shown(d) or d.find_elements(By.CSS_SELECTOR, "#turn.yours"))
            if result_shown(drv):
                break
            before = decisions(drv)
            if not done and drv.find_elements(By.CSS_SELECTOR, "#board rect.target"):  # the board as a person sees it
                ARTIFACTS.mkdir(parents=True, exist_ok=True)
                drv.save_screenshot(str(ARTIFACTS / "web_game_turn.png"))
            try:
                how = one_click(drv, sum(done.values()))
            except FLAKY_DOM:  # the page was redrawn under the click: look again
                continue
            wait_for_the_click(drv, before, how)
            done[how] = done.get(how, 0) + 1
        else:
            raise AssertionError("the game did not end in 400 clicks")
        assert not drv.find_element(By.ID, "error").is_displayed()
        res = drv.find_element(By.ID, "result")
        shown = {k: res.get_attribute(f"data-{k}") for k in ("result", "escaped", "round", "decisions")}
        text = res.text
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        assert drv.save_screenshot(str(ARTIFACTS / "web_game.png"))
        drv.set_window_size(390, 844)  # a phone: one column, nothing wider than the screen
        WebDriverWait(drv, 10).until(lambda d: d.execute_script("return window.innerWidth") <= 400)
        assert drv.save_screenshot(str(ARTIFACTS / "web_game_phone.png"))
        too_wide = drv.execute_script(
            "return [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > "
            "window.innerWidth + 1).map(e => e.tagName + '#' + e.id + '.' + e.className).slice(0, 8)")
        assert too_wide == [], f"wider than a phone's screen: {too_wide}"

        # a link with a wrong token: the page says so and watches (the game is not touched)
        drv.set_window_size(1280, 900)
        drv.get(base + "/")  # from another page: the same page with another # would not load again
        drv.get(f"{base}/table/{table_id}#seat=0&token=not-the-token")
        WebDriverWait(drv, 30, POLL).until(lambda d: d.find_element(By.ID, "conn").text == "watching")
        assert drv.find_element(By.ID, "error").get_attribute("data-code") == "bad_token"
        assert "wrong token for seat 0" in drv.find_element(By.ID, "error").text

        # the record, replayed in the page: from the table's link, then as a file picked in the lobby
        drv.get(f"{base}/replay/{table_id}.json")
        pos = drv.find_element(By.ID, "rp-pos")
        WebDriverWait(drv, 30, POLL).until(lambda d: pos.text.startswith("step 0 / "))
        body = drv.find_element(By.TAG_NAME, "body")
        for _ in range(3):
            body.send_keys(Keys.ARROW_RIGHT)
        n_steps = int(pos.text.split("/ ")[1])
        assert pos.text == f"step 3 / {n_steps}" and not result_shown(drv)
        drv.find_element(By.ID, "rp-play").click()  # plays on by itself, two steps a second
        WebDriverWait(drv, 30, POLL).until(lambda d: int(pos.text.split()[1]) >= 5)
        drv.find_element(By.ID, "rp-play").click()
        slider = drv.find_element(By.ID, "rp-slider")
        for _ in range(n_steps):  # to the end with the keyboard on the slider, as a person would
            slider.send_keys(Keys.ARROW_RIGHT)
        WebDriverWait(drv, 10, POLL).until(lambda d: result_shown(d))
        replayed = {k: drv.find_element(By.ID, "result").get_attribute(f"data-{k}") for k in shown}
        drv.save_screenshot(str(ARTIFACTS / "web_replay.png"))
        drv.get(base + "/")
        WebDriverWait(drv, 30, POLL).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#preset option"))
        drv.find_element(By.ID, "record-file").send_keys(str(tmp_path / "records" / f"{table_id}.json"))
        WebDriverWait(drv, 30, POLL).until(lambda d: d.find_element(By.ID, "rp-pos").text == f"step 0 / {n_steps}")

    rec = load_record(tmp_path / "records" / f"{table_id}.json")
    st = replay_record(rec).final  # verifies the stored result and final state hash
    assert shown == {"result": rec["result"]["name"], "escaped": str(rec["result"]["escaped"]),
                     "round": str(int(st.round[0])), "decisions": str(len(rec["actions"]))}
    assert replayed == shown and n_steps == len(rec["actions"])
    assert text.startswith(f"Result: {rec['result']['name'].upper()} · {rec['result']['escaped']} escaped")
    assert done.get("cell", 0) + done.get("cell+popover", 0) > 0 and done.get("rotation", 0) > 0, done
    assert done.get("button", 0) > 0 and done.get("key 1-9", 0) + done.get("key e", 0) > 0, done
    people = [a for a in rec["actions"] if a["player"] == "human"]
    assert sum(done.values()) == len(people)  # every click was one recorded decision of the person


def team_text(drv, seat: int) -> str:
    """A team's card as shown (read in one script call: the page may be redrawn between two WebDriver calls)."""
    return drv.execute_script(f"const e = document.querySelector(\"#team .itc-team[data-seat='{seat}']\"); "
                              "return e ? e.innerText : '';")


def test_a_person_plays_in_the_cave_in_chromium(browser, tmp_path: Path) -> None:
    """An In the Cave table from the lobby (2 teams: a person and the heuristic, seed 7): the packing by buttons
    and a key, then turns by reveals, the drawn tile's turnings and cells on the board; each click is one recorded
    decision and changes what the page shows; the board at phone width; a bots-only game's record replayed in the
    page to its result."""
    import json
    import urllib.request

    from subterra_game.in_the_cave import records as R

    drv = browser
    with serving(tmp_path) as (base, _app):
        drv.get(base + "/")
        WebDriverWait(drv, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#game-kind option"))
        Select(drv.find_element(By.ID, "game-kind")).select_by_value("itc")
        assert drv.find_element(By.ID, "num-teams").is_displayed()
        assert not drv.find_element(By.ID, "difficulty").is_displayed()
        assert Select(drv.find_element(By.ID, "preset")).first_selected_option.get_attribute("value") == "default"
        drv.find_element(By.ID, "seed").send_keys("7")
        delay = drv.find_element(By.ID, "delay")
        delay.clear()
        delay.send_keys("0")
        assert [Select(drv.find_element(By.ID, f"seat-{i}")).first_selected_option.get_attribute("value")
                for i in (0, 1)] == ["human", "heuristic"]
        assert drv.find_elements(By.ID, "seat-2") == []
        drv.find_element(By.ID, "create").click()
        wait = WebDriverWait(drv, 60, POLL)
        wait.until(lambda d: "/table/" in d.current_url and d.find_elements(By.CSS_SELECTOR, "#turn.yours"))
        table_id = drv.current_url.rsplit("/", 1)[1]
        assert drv.find_element(By.ID, "brand").text == "In the Cave"
        assert "initial packing" in drv.find_element(By.ID, "team").text
        assert drv.find_elements(By.CSS_SELECTOR, "#board rect[data-kind='home']")

        # the packing: a button, then the state shows it; then 'p' (done packing)
        assert "backpack: empty" in team_text(drv, 0)
        before = decisions(drv)
        drv.find_element(By.CSS_SELECTOR, "#actions button[data-action='40']").click()  # take_consumable
        wait.until(lambda d: decisions(d) == before + 1)
        assert "backpack: 1 consumable" in team_text(drv, 0)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        for action in (40, 40, 40, 41, 43, 44):  # more consumables, a rope, the camera and the raft
            before = decisions(drv)
            drv.find_element(By.CSS_SELECTOR, f"#actions button[data-action='{action}']").click()
            wait.until(lambda d, b=before: decisions(d) == b + 1)
        drv.find_element(By.TAG_NAME, "body").send_keys("p")
        wait.until(lambda d: "initial packing" not in d.find_element(By.ID, "team").text)
        assert "backpack: 4 consumable, 1 rope" in team_text(drv, 0)

        done: dict[str, int] = {"button": 7, "key p": 1}
        tiles0 = len(drv.find_elements(By.CSS_SELECTOR, "#board rect.tile"))
        moved = False
        for n in range(60):
            wait.until(lambda d: result_shown(d) or d.find_elements(By.CSS_SELECTOR, "#turn.yours"))
            if result_shown(drv):
                break
            before, where = decisions(drv), team_text(drv, 0)
            try:
                how = one_click(drv, n, passive=("end_turn", "pack"), first="reveal")
            except FLAKY_DOM:
                continue
            wait_for_the_click(drv, before, how)
            if how.startswith("cell") and team_text(drv, 0).split(" · tokens")[0] != where.split(" · tokens")[0]:
                moved = True  # a click on the board moved the pawn
            done[how] = done.get(how, 0) + 1
            if n == 25:
                drv.save_screenshot(str(ARTIFACTS / "web_itc_turn.png"))
        tiles1 = len(drv.find_elements(By.CSS_SELECTOR, "#board rect.tile"))
        assert not drv.find_element(By.ID, "error").is_displayed()
        assert done.get("rotation", 0) > 0 and done.get("reveal", 0) > 0 and tiles1 > tiles0, (done, tiles0, tiles1)
        assert moved and done.get("key 1-9", 0) + done.get("key e", 0) > 0, done
        events = drv.find_element(By.ID, "events").text
        assert "team 0 (you): reveal -> drew a" in events or "team 1 (heuristic)" in events
        drv.save_screenshot(str(ARTIFACTS / "web_itc.png"))
        drv.set_window_size(390, 844)  # a phone: one column, nothing wider than the screen
        WebDriverWait(drv, 10).until(lambda d: d.execute_script("return window.innerWidth") <= 400)
        drv.save_screenshot(str(ARTIFACTS / "web_itc_phone.png"))
        too_wide = drv.execute_script(
            "return [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > "
            "window.innerWidth + 1).map(e => e.tagName + '#' + e.id + '.' + e.className).slice(0, 8)")
        assert too_wide == [], f"wider than a phone's screen: {too_wide}"
        shown = decisions(drv)

        # a bots-only game, made through the API, replayed in the page to its end
        drv.set_window_size(1280, 900)
        req = urllib.request.Request(f"{base}/api/tables", method="POST", headers={"Content-Type": "application/json"},
                                     data=json.dumps({"game": "itc", "seed": 1, "seats": ["heuristic", "heuristic"],
                                                      "delay": 0}).encode())
        bots = json.loads(urllib.request.urlopen(req, timeout=60).read())["table"]
        for _ in range(1200):
            listed = json.loads(urllib.request.urlopen(f"{base}/api/tables", timeout=60).read())["tables"]
            if next(t for t in listed if t["table"] == bots)["over"]:
                break
            time.sleep(0.05)
        drv.get(f"{base}/replay/{bots}.json")
        pos = drv.find_element(By.ID, "rp-pos")
        WebDriverWait(drv, 60, POLL).until(lambda d: pos.text.startswith("step 0 / "))
        n_steps = int(pos.text.split("/ ")[1])
        drv.execute_script("const s = document.getElementById('rp-slider'); s.value = s.max; "
                           "s.dispatchEvent(new Event('input'));")
        WebDriverWait(drv, 10, POLL).until(lambda d: result_shown(d))
        res = drv.find_element(By.ID, "result")
        replayed = {k: res.get_attribute(f"data-{k}") for k in ("result", "scores", "winners", "round", "decisions")}
        drv.save_screenshot(str(ARTIFACTS / "web_itc_replay.png"))

    rec = R.load(tmp_path / "records" / f"{table_id}.json")
    R.replay(rec)  # the table's record (a game in progress) replays to its stored state
    assert len(rec["actions"]) == shown and rec["result"]["finished"] is False
    people = [a for a in rec["actions"] if a["player"] == "human"]
    assert sum(done.values()) == len(people)  # every click was one recorded decision of the person
    bots_rec = R.load(tmp_path / "records" / f"{bots}.json")
    R.replay(bots_rec)
    res = bots_rec["result"]
    assert replayed == {"result": res["result"], "scores": ",".join(map(str, res["scores"])),
                        "winners": ",".join(str(s) for s, w in enumerate(res["winners"]) if w),
                        "round": str(res["round"]), "decisions": str(len(bots_rec["actions"]))}
    assert n_steps == len(bots_rec["actions"])
