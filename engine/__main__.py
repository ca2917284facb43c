"""``python -m engine``: play, arena, replay --verify, cards, decks, bench."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from engine import games
from engine.bots import make_bot
from engine.bots.arena import run_arena
from engine.core import DeckError, Decklist, Replay, verify_replay
from engine.runner import play_match


class CliError(Exception):
    """A user mistake: printed as one clear message, exit status 2."""


def _game(name: str):
    try:
        return games[name]
    except KeyError as exc:
        raise CliError(exc.args[0]) from None


def load_deck(game, arg: str) -> Decklist:
    """A starter deck's name, or the path to a plain-text decklist file."""
    starters = game.starter_decks()
    for name, deck in starters.items():
        if name.casefold() == arg.strip().casefold():
            return deck
    path = Path(arg)
    if not path.exists():
        known = ", ".join(starters)
        raise CliError(f"deck '{arg}' is neither a starter deck ({known}) nor a decklist file")
    try:
        return game.parse_deck(path.read_text(encoding="utf-8"), name=path.stem)
    except DeckError as exc:
        lines = "\n".join(f"  - {p}" for p in exc.problems)
        raise CliError(f"{path} is not a legal {game.title} deck:\n{lines}") from None


def _seats(game, args) -> int:
    players = getattr(args, "players", None) or game.min_seats
    if not game.min_seats <= players <= game.max_seats:
        raise CliError(f"{game.title} is played by {game.min_seats} to {game.max_seats} players, not {players}")
    return players


def _decks(game, args, players: int) -> list[Decklist]:
    names = [d for d in (args.decks or "").split(",") if d.strip()]
    if not names:
        names = list(game.starter_decks())
    decks = [load_deck(game, n) for n in names]
    if len(decks) > players:
        if args.decks:
            raise CliError(f"{len(decks)} decks given for {players} players")
        decks = decks[:players]
    return [decks[i % len(decks)] for i in range(players)]


def _bots(args, players: int):
    names = [b for b in (args.bots or "random").split(",") if b.strip()]
    if len(names) > players:
        raise CliError(f"{len(names)} bots given for {players} players")
    try:
        return [make_bot(names[i % len(names)]) for i in range(players)]
    except ValueError as exc:
        raise CliError(str(exc)) from None


def _describe(result, decks, bots) -> str:
    outcome = result.outcome
    if outcome.winner is None:
        head = "draw"
    else:
        w = outcome.winner
        head = f"seat {w} ({decks[w].name or 'deck'}, {bots[w].name}) wins"
    line = f"seed {result.replay.seed}: {head} by {outcome.reason} in {result.actions} actions; " \
           f"scores {list(outcome.scores)}"
    for error in result.errors:
        line += f"; {error}"
    return line


def cmd_play(args) -> int:
    game = _game(args.game)
    players = _seats(game, args)
    decks = _decks(game, args, players)
    bots = _bots(args, players)
    if args.replay_dir:
        os.makedirs(args.replay_dir, exist_ok=True)
    for i in range(args.games):
        seed = args.seed + i
        result = play_match(game, decks, bots, seed=seed, record_digests=bool(args.replay_dir),
                            decision_seconds=args.decision_seconds)
        if args.replay_dir:
            path = Path(args.replay_dir) / f"{game.name}-{seed}.json"
            path.write_text(result.replay.dumps(), encoding="utf-8")
        if args.json:
            print(json.dumps(result.to_json()), flush=True)
        else:
            print(_describe(result, decks, bots), flush=True)
    return 0


def cmd_arena(args) -> int:
    game = _game(args.game)
    specs = [b.strip() for b in args.bots.split(",") if b.strip()]
    names = [d for d in (args.decks or "").split(",") if d.strip()]
    pool = [load_deck(game, n) for n in names] or None

    def progress(index, match) -> None:
        if args.quiet:
            return
        winner = match.outcome.winner
        head = "draw" if winner is None else f"seat {winner} wins"
        errors = "".join(f"; {e}" for e in match.errors)
        print(f"  game {index + 1}/{args.games} (seed {match.replay.seed}): {head} by {match.outcome.reason} "
              f"in {match.actions} actions{errors}", file=sys.stderr, flush=True)

    try:
        result = run_arena(game, specs, games=args.games, seed=args.seed, players=args.players, decks=pool,
                           decision_seconds=args.decision_seconds, matchups=args.matchups, on_game=progress,
                           jobs=args.jobs)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    print(json.dumps(result.to_json()) if args.json else result.to_text())
    return 0


def cmd_replay(args) -> int:
    try:
        replay = Replay.loads(Path(args.file).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CliError(f"no such file: {args.file}") from None
    except ValueError as exc:
        raise CliError(f"{args.file}: {exc}") from None
    _game(replay.game)
    outcome = replay.outcome.to_json() if replay.outcome else None
    if not args.verify:
        print(json.dumps({"game": replay.game, "seed": replay.seed, "actions": len(replay.actions),
                          "outcome": outcome}))
        return 0
    problems = verify_replay(replay)
    if problems:
        for p in problems:
            print(f"MISMATCH: {p}")
        return 1
    checked = "every state and the outcome" if replay.digests is not None else "the outcome"
    print(f"OK: {len(replay.actions)} actions replayed; {checked} reproduced exactly")
    return 0


def cmd_cards(args) -> int:
    game = _game(args.game)
    cards = game.cards()
    if args.json:
        print(json.dumps(cards, indent=1))
        return 0
    for card in cards:
        text = card.get("text") or ""
        print(f"{card['name']:<28} {card.get('type', ''):<12} {text}")
    print(f"{len(cards)} cards")
    return 0


def cmd_decks(args) -> int:
    game = _game(args.game)
    decks = game.starter_decks()
    if args.json:
        print(json.dumps([{"name": name, "decklist": deck.to_text(game.commander_label)}
                          for name, deck in decks.items()], indent=1))
        return 0
    for name, deck in decks.items():
        print(f"# {name}")
        print(deck.to_text(game.commander_label))
    return 0


def bench(game_name: str, *, games_count: int, players: int | None = None, seed: int = 1) -> dict:
    """Random-versus-random games on one core: games and actions per second."""
    game = _game(game_name)
    players = players or game.min_seats
    starters = list(game.starter_decks().values())
    decks = [starters[i % len(starters)] for i in range(players)]
    bots = [make_bot("random") for _ in range(players)]
    actions = 0
    started = time.perf_counter()
    for i in range(games_count):
        actions += play_match(game, decks, bots, seed=seed + i).actions
    elapsed = time.perf_counter() - started
    return {
        "game": game.name,
        "players": players,
        "games": games_count,
        "actions": actions,
        "seconds": round(elapsed, 3),
        "games_per_second": round(games_count / elapsed, 1),
        "actions_per_second": round(actions / elapsed),
        "mean_actions_per_game": round(actions / games_count, 1),
    }


def cmd_bench(args) -> int:
    game = _game(args.game)
    result = bench(game.name, games_count=args.games, players=_seats(game, args), seed=args.seed)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['game']} ({result['players']} players), random vs random, one core: "
              f"{result['games_per_second']} games/s, {result['actions_per_second']} actions/s "
              f"({result['games']} games, {result['actions']} actions, {result['seconds']} s)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m engine", description="TempoFront and Conquest engine")
    sub = parser.add_subparsers(dest="command", required=True)

    def game_arg(p, players=False):
        p.add_argument("--game", required=True, help=f"one of: {', '.join(games)}")
        if players:
            p.add_argument("--players", type=int, default=None, help="number of seats (Conquest: 2-4)")

    p = sub.add_parser("play", help="play bot matches and print one result line per game")
    game_arg(p, players=True)
    p.add_argument("--decks", default="", help="comma-separated starter deck names or decklist files")
    p.add_argument("--bots", default="random", help="comma-separated bot names, one per seat")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--games", type=int, default=1)
    p.add_argument("--json", action="store_true", help="one JSON object per game")
    p.add_argument("--replay-dir", default=None, help="write one replay file per game here")
    p.add_argument("--decision-seconds", type=float, default=None,
                   help="hard limit of one decision: stopped there, the bot forfeits (docs/bots.md)")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("arena", help="many bot matches with seats and decks rotated; win rates with 95%% CIs")
    game_arg(p, players=True)
    p.add_argument("--bots", required=True, help="comma-separated bot specs, e.g. search:strong,greedy")
    p.add_argument("--decks", default="", help="deck pool (starter names or files); default: the starter decks")
    p.add_argument("--matchups", choices=("mirror", "mixed"), default="mirror",
                   help="mirror: every seat plays the same deck, the pool's decks in turn (default); "
                        "mixed: every combination of decks in turn")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true", help="one JSON object with per-bot results")
    p.add_argument("--quiet", action="store_true",
                   help="no per-game progress lines on stderr (never on stdout, so --json stays one object)")
    p.add_argument("--decision-seconds", type=float, default=None,
                   help="hard limit of one decision: stopped there, the bot forfeits (docs/bots.md)")
    p.add_argument("--jobs", type=int, default=1,
                   help="worker processes playing matches in parallel (0: one per core); same results as 1")
    p.set_defaults(func=cmd_arena)

    p = sub.add_parser("replay", help="show or verify a saved replay")
    p.add_argument("file")
    p.add_argument("--verify", action="store_true", help="exit 1 if any state or the outcome differs")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("cards", help="list the card pool")
    game_arg(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_cards)

    p = sub.add_parser("decks", help="list the starter decks as decklists")
    game_arg(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_decks)

    p = sub.add_parser("bench", help="random-versus-random speed on one core")
    game_arg(p, players=True)
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except CliError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`python -m engine cards ... | head`): stop quietly.
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
