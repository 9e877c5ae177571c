"""Bots that explain themselves: each bot seat's intent in one short line, and a hint for a person's seat.

The words come from the bots' own reckoning, never a guess made afterwards: the heuristic's plan
(``agents.heuristic.intent``: its goal tile, its path, the kind of action it chose) and, for a search seat, the
search's values of its best two actions (``agents.search.explain``). Reading them changes no decision: the
heuristic's plan is read by a second run of the same compiled decision on its own scratch, and the search's values
are the array it keeps after deciding. The terminal game and the browser tables (``session.Session``) share this.
"""

from __future__ import annotations

from typing import Any

from subterra_env.games.sub_terra.core.actions import ACTION_NAMES

RANDOM_WORDS = "picking any legal action at random"


def _heuristic_plays(session: Any) -> bool:
    from agents.heuristic import HeuristicAgent

    return HeuristicAgent.plays(session.env.config.scenario)


def plan_words(session: Any, action: int | None = None) -> tuple[int, str]:
    """The heuristic's decision now and its plan in words; with ``action`` (another bot's choice), the words for that
    action read against the heuristic's plan."""
    from agents.heuristic.intent import describe, heuristic_intent, reader

    env = session.env
    it = heuristic_intent(env.core, env.state_, env.legal_mask)
    if action is None or action == it.action:
        return it.action, it.text
    return it.action, describe(env.state_, 0, int(action), reader().scratch.plans[0]).text


def bot_decision(session: Any, seat: int) -> tuple[int, str]:
    """The bot's action at ``seat`` (exactly what ``bots[seat].act`` returns) and its intent line."""
    env, spec = session.env, session.seats[seat]
    bot = session.bots[seat]
    if spec.kind == "random":
        return int(bot.act(env, seat)), RANDOM_WORDS
    if spec.kind not in ("heuristic", "search") or not _heuristic_plays(session):
        return int(bot.act(env, seat)), ""  # a policy network has no plan to read
    h_action, words = plan_words(session)
    action = int(bot.act(env, seat))
    if spec.kind == "search":
        from agents.search.explain import best_actions, values_line

        if action != h_action:
            words = plan_words(session, action)[1]
        best = best_actions(bot.agent)
        if best:
            words += f" · best: {values_line(best, action)}"
    return action, words


def search_refuses(scenario: str) -> str:
    """Why the search bot cannot sit at a table of ``scenario`` ("" when it can): it plans the base game only."""
    from agents.search import SearchAgent

    return "" if SearchAgent.plays(scenario) else f"the search bot does not play {scenario} yet"


def hint(session: Any, seat: int) -> dict[str, Any]:
    """What the strongest bot that plays this table would do in ``seat``'s place now, and why (blocking: a search
    takes about a tenth of a second; call it off the event loop)."""
    env = session.env
    if not _heuristic_plays(session):
        raise ValueError(f"no bot here plays {env.config.scenario}: no hint")
    h_action, words = plan_words(session)
    if search_refuses(env.config.scenario):
        return {"action": h_action, "name": ACTION_NAMES[h_action], "bot": "heuristic", "why": words}
    from agents.search import SearchAgent
    from agents.search.explain import best_actions, values_line

    agent = session.__dict__.get("_hint_search")
    if agent is None:
        agent = session._hint_search = SearchAgent(env, seed=0)
    action = int(agent.act(None, env.legal_mask))
    if action != h_action:
        words = plan_words(session, action)[1]
    best = best_actions(agent)
    why = words + (f" · search values (cavers out over the heuristic's choice): {values_line(best, action)}" if best else
                   " · the only sensible choice")
    return {"action": action, "name": ACTION_NAMES[action], "bot": "search", "why": why}


__all__ = ["RANDOM_WORDS", "bot_decision", "hint", "plan_words"]
