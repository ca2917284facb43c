"""What a finished game tells the deck lab: per seat, the cards drawn and played
(``Game.card_usage``, docs/architecture.md "Cards drawn and played"; each game's
definitions on its rules page).

A scripted game of each game (TempoFront, Conquest, Highcard) whose draws and plays are
known exactly; a Hypothesis property over random playouts of both engine games; the
contract's refusals; and a lab run of Highcard computed with nothing but the Game API.
"""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import games
from engine.conquest import GAME as CONQUEST
from engine.core import CONCEDE, Action, CardUsage, Decklist, Game, Replay, RulesVersionError
from engine.runner import RandomBot, play_match
from engine.tempofront import GAME as TEMPOFRONT


def _highcard() -> Game:
    """Highcard, the test game of tests/platform/games/tiny_game.py (not registered here)."""
    # Imported as the tests beside it import it (its folder on the path), so that every test
    # of the run shares one module.
    folder = str(Path(__file__).resolve().parents[1] / "platform" / "games")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module("tiny_game").GAME


HIGHCARD = _highcard()


class _Script:
    """Applies actions to a new match and records them as a replay and an event log."""

    def __init__(self, game: Game, decks: list[Decklist], seed: int, params: dict):
        self.game = game
        self.state = game.new_match(decks, seed, params)
        self.replay = Replay(game=game.name, rules_version=str(game.rules_version), seed=seed, decks=decks,
                             params=params)
        self.events = list(self.state.opening_events)

    def apply(self, seat: int, action: Action) -> None:
        self.events += self.state.apply(seat, action)
        self.replay.actions.append((seat, action))

    def first(self, seat: int, kind: str, card: str) -> Action | None:
        """The first legal action of ``kind`` with ``card`` for ``seat`` (any other parameters)."""
        for action in self.state.legal_actions(seat):
            if action.kind == kind and action.get("card") == card:
                return action
        return None

    def finish(self) -> list[CardUsage]:
        assert self.state.outcome is not None, "the script did not finish its game"
        self.replay.outcome = self.state.outcome
        from_replay = self.game.card_usage(Replay.loads(self.replay.dumps()))
        assert from_replay == self.game.card_usage(self.replay, events=self.events)
        return from_replay


# --------------------------------------------------------------------------- scripted games


def test_tempofront_scripted_game_counts_the_kept_hand_draws_scouts_and_plays_exactly():
    """12-card decks (3 copies of 4 cards) and a 10-card opening hand: every card is in the
    hand at least once whatever the shuffle, and a seat that has drawn its whole deck has
    drawn each card 3 times. Seat 0's mulligan puts 10 cards back and draws 10 (counted
    once: the hand given back was never playable); Recon's Scout puts one of the last 2
    cards into seat 0's hand, Gale Courier draws one for seat 1; Cycle 2 draws the last
    card (the second draw finds an empty deck: fatigue, nothing drawn). Played: Cinder Imp
    and Recon (seat 0), Gale Courier and the Reaction Brace (seat 1); seat 0's Brace is
    only Prepared."""
    params = {"deck_size": 12, "max_copies": 3, "opening_hand": 10, "draw_per_cycle": 2, "mulligans": 1}
    cards = ("Cinder Imp", "Gale Courier", "Recon", "Brace")
    deck = Decklist(commander="Kael Embercrown", cards=tuple((name, 3) for name in cards), name="Script")
    script = _Script(TEMPOFRONT, [deck, deck], 11, params)
    state = script.state
    mains = {0: [("deploy", "cinder-imp"), ("play", "recon"), ("prepare", "brace")],
             1: [("deploy", "gale-courier")]}
    reactions = {0: [], 1: [("react", "brace")]}
    mulligans = []
    while state.outcome is None:
        seat = state.to_act()[0]
        if state.cycle >= 2:
            script.apply(0, Action.of(CONCEDE, reason="the script ends"))
            break
        if state.phase == "mulligan":
            mulligans.append(seat)
            script.apply(seat, Action("mulligan") if seat == 0 else Action("keep"))
            continue
        if state.phase == "scout":
            script.apply(seat, state.legal_actions(seat)[0])
            continue
        plan = mains[seat] if state.phase == "main" else reactions[seat]
        action = script.first(seat, *plan[0]) if plan else None
        if action is not None:
            plan.pop(0)
            script.apply(seat, action)
        else:
            script.apply(seat, Action("pass"))
    assert sorted(mulligans) == [0, 1] and mains == {0: [], 1: []} and reactions == {0: [], 1: []}
    assert [p.fatigue for p in state.players] == [1, 1]  # every card was drawn before Cycle 2's second draw

    usage = script.finish()
    whole_deck = Counter({"cinder-imp": 3, "gale-courier": 3, "recon": 3, "brace": 3})
    assert usage[0].drawn == whole_deck
    assert usage[1].drawn == whole_deck
    assert usage[0].played == Counter({"cinder-imp": 1, "recon": 1})
    assert usage[1].played == Counter({"gale-courier": 1, "brace": 1})
    assert usage[0].played_cards == {"cinder-imp", "recon"}
    assert usage[0].drawn_cards == set(whole_deck)


def test_conquest_scripted_game_counts_a_redraw_from_the_discard_pile_and_placed_units():
    """10-card decks and 10 cards drawn at each Battle: the active seat's mulligan gives
    back the whole deck and draws it again (counted once). Placed and played in Battle 1:
    Iron Legionnaire and Vanguard Drone (seat 0); Recruit of the Line, Iron Legionnaire
    and the Lightspeed Sabotage (seat 1). Battle 2's draw finds the deck empty: the discard
    pile (those very cards) becomes the deck and they are drawn again, counted again. The
    Fragments go up to the Upload Zone (not played); the Celestial is not counted."""
    params = {"deck_size": 10, "draw_per_battle": 10, "battles": 2, "forward_locations": 2,
              "rear_locations": 1, "mulligans": 1}
    cards = ("Iron Legionnaire", "Recruit of the Line", "Vanguard Drone", "Sabotage", "Black Energy Fragment")
    deck = Decklist(commander="The Quiet Sun", cards=tuple((name, 2) for name in cards), name="Script")
    script = _Script(CONQUEST, [deck, deck], 3, params)
    state = script.state
    placements = {0: {0: {1: "iron-legionnaire", 2: "vanguard-drone"}, 1: {1: "recruit-of-the-line"}},
                  1: {0: {}, 1: {3: "iron-legionnaire"}}}
    responses = {0: [], 1: ["sabotage"]}
    mulligans = []
    while state.outcome is None:
        if state.battle == 2:
            script.apply(0, Action.of(CONCEDE, reason="the script ends"))
            break
        seat = state.to_act()[0]
        if state.phase == "mulligan":
            mulligans.append(seat)
            script.apply(seat, Action("mulligan") if seat == state.active else Action("keep"))
        elif state.phase == "celestial":
            script.apply(seat, state.legal_actions(seat)[0] if seat == 0 else Action("pass"))
        elif state.phase == "placement":
            number = state.legal_actions(seat)[0]["location"]
            card = placements[state.skirmish][seat].get(number, "empty")
            script.apply(seat, Action.of("place", card=card, location=number))
        else:
            plan = responses[seat]
            script.apply(seat, Action.of("respond", card=plan.pop(0)) if plan else Action("pass"))
    assert sorted(mulligans) == [0, 1] and responses == {0: [], 1: []}
    assert [p.celestial_played for p in state.players] == [True, False]
    assert [len(p.uploads) for p in state.players] == [2, 2]

    usage = script.finish()
    twice = {"iron-legionnaire": 2, "recruit-of-the-line": 2, "vanguard-drone": 2, "sabotage": 2,
             "black-energy-fragment": 2}
    assert usage[0].drawn == Counter(twice) + Counter({"iron-legionnaire": 1, "vanguard-drone": 1})
    assert usage[1].drawn == Counter(twice) + Counter({"recruit-of-the-line": 1, "iron-legionnaire": 1,
                                                       "sabotage": 1})
    assert usage[0].played == Counter({"iron-legionnaire": 1, "vanguard-drone": 1})
    assert usage[1].played == Counter({"recruit-of-the-line": 1, "iron-legionnaire": 1, "sabotage": 1})
    assert "the-quiet-sun" not in usage[0].drawn | usage[0].played


def test_conquest_picks_of_a_placement_that_never_locks_are_not_played():
    """A concession during Placement: seat 0 has picked a unit, the placement never
    locks, the card stays in hand: not played."""
    params = {"deck_size": 10, "draw_per_battle": 10, "mulligans": 0}
    cards = ("Iron Legionnaire", "Recruit of the Line", "Vanguard Drone", "Sabotage", "Black Energy Fragment")
    deck = Decklist(commander="The Quiet Sun", cards=tuple((name, 2) for name in cards), name="Script")
    script = _Script(CONQUEST, [deck, deck], 5, params)
    state = script.state
    while state.phase != "placement":
        script.apply(state.to_act()[0], Action("pass"))
    script.apply(0, Action.of("place", card="iron-legionnaire", location=1))
    script.apply(1, Action.of(CONCEDE))
    usage = script.finish()
    assert usage[0].played == Counter() and usage[1].played == Counter()
    whole_deck = Counter({"iron-legionnaire": 2, "recruit-of-the-line": 2, "vanguard-drone": 2, "sabotage": 2,
                          "black-energy-fragment": 2})
    assert usage[0].drawn == whole_deck and usage[1].drawn == whole_deck


def test_highcard_scripted_game_counts_the_opening_hand_the_draws_and_the_plays():
    """Seed 0 deals seat 0 Three, Two, Two over One, One, Three and seat 1 Three, Five,
    Four over Four, Five, Three (the top card last). Two rounds: seat 0 plays Two, Two;
    seat 1 plays Five, Four; each play draws the top card."""
    decks = HIGHCARD.starter_decks()
    script = _Script(HIGHCARD, [decks["Low Road"], decks["High Road"]], 0, {"rounds": 2})
    state = script.state
    assert state.hands == [["Three", "Two", "Two"], ["Three", "Five", "Four"]]
    assert state.decks == [["Three", "One", "One"], ["Three", "Five", "Four"]]
    for seat, card in ((0, "Two"), (1, "Five"), (0, "Two"), (1, "Four")):
        script.apply(seat, Action.of("play", card=card))
    usage = script.finish()
    assert usage[0].drawn == Counter({"three": 1, "two": 2, "one": 2})
    assert usage[1].drawn == Counter({"three": 1, "five": 2, "four": 2})
    assert usage[0].played == Counter({"two": 2})
    assert usage[1].played == Counter({"five": 1, "four": 1})
    assert state.outcome.winner == 1


# --------------------------------------------------------------------------- the property


def _field(game: Game, seats: int, offset: int) -> list[Decklist]:
    starters = list(game.starter_decks().values())
    return [starters[(offset + i) % len(starters)] for i in range(seats)]


def _ids(game: Game) -> dict[str, str]:
    return {card["name"]: card["id"] for card in game.cards()}


PLAYOUTS = [(TEMPOFRONT, 2)] + [(CONQUEST, seats) for seats in range(CONQUEST.min_seats, CONQUEST.max_seats + 1)]


@settings(max_examples=100, deadline=None)
@given(config=st.sampled_from(PLAYOUTS), seed=st.integers(min_value=0, max_value=2**40))
def test_random_playouts_play_only_drawn_cards_of_the_seats_decklist_and_replays_agree(config, seed):
    """Random playouts of both games: every seat played no card more often than it drew it
    (in both games a card reaches play only from the hand, and the hand only by a draw),
    every card counted is in that seat's decklist (its commander never), the usage read
    from the replay equals the usage read from the events recorded while playing, and in
    TempoFront (no card goes back to the deck once drawn) a card's draws are exactly its
    copies that left the deck."""
    game, seats = config
    decks = _field(game, seats, seed)
    last = {}
    result = play_match(game, decks, [RandomBot() for _ in decks], seed=seed, record_events=True,
                        on_action=lambda n, state, events: last.setdefault("state", state))
    while_playing = game.card_usage(result.replay, events=result.events)
    from_replay = game.card_usage(Replay.loads(result.replay.dumps()))
    assert from_replay == while_playing
    assert len(from_replay) == seats
    ids = _ids(game)
    for seat, (usage, deck) in enumerate(zip(from_replay, decks, strict=True)):
        in_deck = {ids[name] for name, _ in deck.cards}
        assert set(usage.drawn) <= in_deck, f"seat {seat} drew cards outside its decklist"
        assert set(usage.played) <= in_deck, f"seat {seat} played cards outside its decklist"
        assert all(n > 0 for n in usage.drawn.values()) and all(n > 0 for n in usage.played.values())
        for card, n in usage.played.items():
            assert n <= usage.drawn[card], f"seat {seat} played {card} {n} times, drew it {usage.drawn[card]}"
        assert usage.played_cards <= usage.drawn_cards
        if game is TEMPOFRONT:
            player = last["state"].players[seat]
            left_deck = Counter({ids[name]: n for name, n in deck.cards})
            left_deck.subtract(player.deck + player.scouting)
            assert usage.drawn == +left_deck


# --------------------------------------------------------------------------- the contract


def _finished_tempofront():
    decks = _field(TEMPOFRONT, 2, 0)
    return play_match(TEMPOFRONT, decks, [RandomBot(), RandomBot()], seed=4, record_events=True)


def test_a_game_without_the_hook_says_so_and_replays_nothing():
    class Silent(Game):
        name = "silent"
        title = "Silent"

        def new_match(self, decks, seed, params=None):
            raise AssertionError("a game that reports no usage must not be replayed")

    replay = Replay(game="silent", rules_version="1", seed=1, decks=[], params={})
    assert not Silent().reports_card_usage
    assert TEMPOFRONT.reports_card_usage and CONQUEST.reports_card_usage and HIGHCARD.reports_card_usage
    with pytest.raises(NotImplementedError, match="Silent does not report the cards drawn and played.*"
                                                  "card_usage_from_events"):
        Silent().card_usage(replay)


def test_an_unfinished_game_reports_no_usage():
    """Usage names the cards of every hand: only a finished game's is reported."""
    result = _finished_tempofront()
    cut = Replay.loads(result.replay.dumps())
    cut.actions = cut.actions[:20]
    cut.outcome = None
    with pytest.raises(ValueError, match="finished games only: this TempoFront replay of 20 actions ends before"):
        TEMPOFRONT.card_usage(cut)
    with pytest.raises(ValueError, match="finished games only: this TempoFront replay has no outcome"):
        TEMPOFRONT.card_usage(cut, events=result.events)


def test_a_replay_of_another_game_or_other_rules_is_refused():
    result = _finished_tempofront()
    with pytest.raises(ValueError, match="this is a replay of 'tempofront', not of Conquest"):
        CONQUEST.card_usage(result.replay)
    old = Replay.loads(result.replay.dumps())
    old.rules_version = "1"
    with pytest.raises(RulesVersionError, match="rules version 1"):
        TEMPOFRONT.card_usage(old)


def test_card_usage_json_round_trip():
    usage = CardUsage(drawn=Counter({"recon": 2, "brace": 1}), played=Counter({"recon": 1}))
    assert usage.to_json() == {"drawn": {"brace": 1, "recon": 2}, "played": {"recon": 1}}
    assert CardUsage.from_json(usage.to_json()) == usage


# --------------------------------------------------------------------------- a lab run


def _lab_run(game: Game, deck: Decklist, field: list[Decklist], games_per_opponent: int) -> dict[str, dict]:
    """A deck lab run with nothing but the Game API (the lab never names a game): the deck
    plays each deck of the field, in both seats; per card id of the deck, the games in
    which it was drawn and played and the wins among them."""
    stats: dict[str, dict] = {}
    n = 0
    for opponent in field:
        for i in range(games_per_opponent):
            seat = i % 2
            decks = [deck, opponent] if seat == 0 else [opponent, deck]
            result = play_match(game, decks, [RandomBot(), RandomBot()], seed=1000 + n, record_events=True)
            n += 1
            usage = game.card_usage(result.replay, events=result.events)[seat]
            won = result.outcome.winner == seat
            for card in usage.drawn_cards:
                row = stats.setdefault(card, Counter())
                row["drawn"] += 1
                row["won_drawn"] += won
            for card in usage.played_cards:
                row = stats.setdefault(card, Counter())
                row["played"] += 1
                row["won_played"] += won
    return {card: {"games_drawn": row["drawn"], "games_played": row["played"],
                   "win_rate_drawn": row["won_drawn"] / row["drawn"] if row["drawn"] else None,
                   "win_rate_played": row["won_played"] / row["played"] if row["played"] else None}
            for card, row in stats.items()}


def test_highcard_lab_run_reports_every_card_drawn_in_every_game_and_the_high_road_always_winning():
    """Three rounds draw all six cards of a Highcard deck. High Road (Three to Five) always
    beats Low Road (One to Three: at most 8 against at least 10): each deck's three cards
    are drawn in all 12 games and played in some; High Road's win whenever drawn or
    played, Low Road's never."""
    decks = HIGHCARD.starter_decks()
    high, low = decks["High Road"], decks["Low Road"]
    report = _lab_run(HIGHCARD, high, [low], 12)
    assert set(report) == {"three", "four", "five"}
    for row in report.values():
        assert row["games_drawn"] == 12
        assert 1 <= row["games_played"] <= 12
        assert row["win_rate_drawn"] == 1.0 and row["win_rate_played"] == 1.0
    report = _lab_run(HIGHCARD, low, [high], 12)
    assert set(report) == {"one", "two", "three"}
    assert all(row["games_drawn"] == 12 and row["win_rate_drawn"] == 0.0 for row in report.values())


@pytest.mark.parametrize("name", ["tempofront", "conquest"])
def test_the_same_lab_run_serves_both_engine_games(name):
    game = games[name]
    deck, *field = _field(game, 3, 0)
    report = _lab_run(game, deck, field, 2)
    ids = _ids(game)
    assert report and set(report) <= {ids[card] for card, _ in deck.cards}
    for row in report.values():
        assert 1 <= row["games_drawn"] <= 4 and row["games_played"] <= row["games_drawn"]
