"""The provably fair shuffle (issue 20), as ``docs/fairness.md`` specifies it: pure
functions, no I/O, so that anyone can recompute a deck from what a game record reveals.

A game's deck order is a published function of the server's secret seed (shown only as
its SHA-256 :func:`commitment` until the game ends), the players' client seeds in seat
order and the game id: an HMAC-SHA256 byte stream keyed with the server seed
(:func:`stream`) feeds a Fisher-Yates shuffle (:func:`shuffle`) of the game kind's deck in
its notation order (``DeckSpec.cards()``: ranks lowest first, suits highest first).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterator, Sequence
from typing import TypeVar

__all__ = ["commitment", "message", "stream", "shuffle", "VERSION"]

#: The name of this construction, part of every message (a later change gets a new one).
VERSION = "bbspoker-deck-v1"

_T = TypeVar("_T")


def commitment(server_seed: bytes) -> str:
    """SHA-256 of ``server_seed``, hex: shown at the start of a game, before the seed."""
    return hashlib.sha256(server_seed).hexdigest()


def message(game_id: int, client_seeds: Sequence[str]) -> bytes:
    """The HMAC message of a game: the UTF-8 of the JSON array ``[VERSION, game_id,
    [client seeds in seat order]]`` written without spaces (``separators=(",", ":")``,
    ``ensure_ascii=False``): unambiguous whatever the seeds contain."""
    return json.dumps([VERSION, game_id, list(client_seeds)], separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def stream(server_seed: bytes, msg: bytes) -> Iterator[int]:
    """Unsigned 32-bit numbers, big-endian, from the blocks ``HMAC-SHA256(server_seed, msg +
    counter)`` with the counter as 8 bytes big-endian from 0: each block gives 8 numbers."""
    counter = 0
    while True:
        block = hmac.new(server_seed, msg + counter.to_bytes(8, "big"), hashlib.sha256).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i:i + 4], "big")
        counter += 1


def shuffle(cards: Sequence[_T], server_seed: bytes, game_id: int,
            client_seeds: Sequence[str]) -> list[_T]:
    """``cards`` in the game's deck order (the top card first): Fisher-Yates from the last
    place down, each place ``i`` swapped with place ``j``, a number of :func:`stream` taken
    modulo ``i + 1``; a number at or above the largest multiple of ``i + 1`` below 2**32 is
    skipped (no bias)."""
    deck = list(cards)
    numbers = stream(server_seed, message(game_id, client_seeds))
    for i in range(len(deck) - 1, 0, -1):
        span = i + 1
        limit = (1 << 32) - (1 << 32) % span
        while (r := next(numbers)) >= limit:
            pass
        j = r % span
        deck[i], deck[j] = deck[j], deck[i]
    return deck
