"""``python -m botclient --url URL --token bot_... --bot module:function [--deck game=id ...]``"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import os
import sys

from botclient.client import BotClient, TokenRefused


def load_chooser(spec: str):
    module, _, name = spec.partition(":")
    if not module or not name:
        raise SystemExit(f"--bot takes module:function, e.g. botclient.examples.tempofront:choose (got {spec!r})")
    return getattr(importlib.import_module(module), name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m botclient", description="Play as a bot (docs/bots-api.md).")
    parser.add_argument("--url", default=os.environ.get("BOT_SITE", "http://127.0.0.1:8000"))
    parser.add_argument("--token", default=os.environ.get("BOT_TOKEN"), help="the bot's token (or BOT_TOKEN)")
    parser.add_argument("--bot", required=True, help="module:function choosing an action, choose(view, legal)")
    parser.add_argument("--deck", action="append", default=[], metavar="GAME=ID",
                        help="the deck to accept challenges of GAME with (default: the bot's newest of each game)")
    parser.add_argument("--decline", action="store_true", help="decline every challenge; only play matches given")
    parser.add_argument("--games", type=int, default=None, help="stop after this many games")
    parser.add_argument("--challenge", action="append", default=[], metavar="NAME:GAME",
                        help="challenge player or bot NAME to a live match of GAME once connected")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(message)s")
    if not args.token:
        parser.error("give --token or set BOT_TOKEN")
    decks = {}
    for item in args.deck:
        game, _, deck = item.partition("=")
        if not deck.isdigit():
            parser.error(f"--deck takes GAME=ID, got {item!r}")
        decks[game] = int(deck)
    wanted = []
    for item in args.challenge:
        name, _, game = item.partition(":")
        if not name or not game:
            parser.error(f"--challenge takes NAME:GAME, got {item!r}")
        wanted.append((name, game))
    client = BotClient(url=args.url, token=args.token, choose=load_chooser(args.bot), decks=decks,
                       accept=not args.decline, max_games=args.games, challenges=wanted)
    try:
        asyncio.run(client.run())
    except TokenRefused as exc:
        print(f"the site refused the token: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    print(f"{client.name}: {len(client.finished)} games played, {len(client.errors)} errors answered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
