"""Provable fairness: a public commitment to each match's secret seed.

A match's seed decides every shuffle and every bot's random choice, so it stays secret
until the match is over (done or failed). From creation the match shows

    commitment = hex(SHA-256(salt_bytes || seed_as_decimal_ascii))

where ``salt_bytes`` are 32 random bytes (shown as 64 lowercase hex digits) and
``seed_as_decimal_ascii`` is the seed written in base 10 without sign, padding or
separators (``b"1234"``). When the match ends, seed and salt are revealed, so anyone
can recompute the commitment and re-run every game with ``python -m engine replay
--verify``. docs/matches.md has the recipe. The salt stops anyone from finding the seed
by hashing every candidate (seeds are only 53 bits).

Pure functions, no Django import: the recipe in the docs is this code.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

#: Random bytes of each match's salt.
SALT_BYTES = 32


def new_salt() -> str:
    """A fresh salt as 64 lowercase hex digits."""
    return secrets.token_hex(SALT_BYTES)


def seed_commitment(*, seed: int, salt: str) -> str:
    """``hex(sha256(bytes.fromhex(salt) + str(seed).encode("ascii")))``."""
    if seed < 0:
        raise ValueError("a match seed is never negative")
    return hashlib.sha256(bytes.fromhex(salt) + str(int(seed)).encode("ascii")).hexdigest()


def commitment_holds(*, seed: int, salt: str, commitment: str) -> bool:
    """Whether ``seed`` and ``salt`` are the ones ``commitment`` was made from."""
    try:
        return hmac.compare_digest(seed_commitment(seed=seed, salt=salt), commitment.lower())
    except ValueError:
        return False


#: The check anyone can run on a game's replay file (``GET /api/matches/<id>/replay/
#: ?game=N&download=1``, served once the match is over), with the commitment they saw
#: while the match was played as the second argument. Standard library only; docs/matches.md
#: and the verify page show exactly this text (a test keeps them equal and runs it).
VERIFY_SCRIPT = '''\
import hashlib, json, sys

replay = json.load(open(sys.argv[1]))  # from /api/matches/<id>/replay/?game=N&download=1
fair = replay["platform"]
seed, salt, number = fair["match_seed"], fair["seed_salt"], fair["number"]
published = sys.argv[2] if len(sys.argv) > 2 else fair["seed_commitment"]  # the one shown before the end
commitment = hashlib.sha256(bytes.fromhex(salt) + str(seed).encode("ascii")).hexdigest()
assert commitment == published.lower(), "the seed is not the one the match committed to"
parts = (seed, "game", number)
game_seed = int.from_bytes(hashlib.blake2b(repr(parts).encode(), digest_size=8).digest(), "big") >> 11
assert game_seed == replay["seed"], "the game was not dealt from the match seed"
print(f"OK: seed {seed} and salt give commitment {commitment}; game {number} was dealt from seed {game_seed}")
'''
