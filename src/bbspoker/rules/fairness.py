"""The provably fair shuffle, as ``docs/fairness.md`` specifies it: pure functions, no
I/O, so that anyone can recompute a deck from what a game record reveals.

A game's deck order is a published function of the server's secret seed (shown only as
its SHA-256 :func:`commitment` until the game ends), the players' client seeds in seat
order and the game id: an HMAC-SHA256 byte stream keyed with the server seed
(:func:`stream`) feeds a Fisher-Yates shuffle (:func:`shuffle`) of the game kind's deck in
its notation order (``DeckSpec.cards()``: ranks lowest first, suits highest first).

A table draws each game's server seed before the game: :class:`Published` is the seed
whose commitment it shows as the next game's (from the end of the game before, and from
the table's start), so that the commitment is public before any client seed of the game
it seals exists (:func:`new_seal` takes it).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

__all__ = ["commitment", "message", "stream", "shuffle", "VERSION", "Seal", "new_seal",
           "Published", "clean_phrase", "SEED_BYTES", "PHRASE_MAX", "SHORT"]

#: The name of this construction, part of every message (a later change gets a new one).
VERSION = "bbspoker-deck-v1"
#: Bytes of a server seed: 256 bits, fresh for every game.
SEED_BYTES = 32
#: Bytes of entropy in a random client seed (shown as twice as many hex digits).
RANDOM_CLIENT_BYTES = 4
#: The most characters of a client seed phrase (five of them and their handles fit the
#: three rows a message may take on the table screen).
PHRASE_MAX = 16
#: Hex digits of the commitment's short form in the message area.
SHORT = 16

_T = TypeVar("_T")


def commitment(server_seed: bytes) -> str:
    """SHA-256 of ``server_seed``, hex: shown at the start of a game, before the seed."""
    return hashlib.sha256(server_seed).hexdigest()


def message(game_id: int, client_seeds: Sequence[str], part: str | None = None) -> bytes:
    """The HMAC message of a game: the UTF-8 of the JSON array ``[VERSION, game_id,
    [client seeds in seat order]]`` written without spaces (``separators=(",", ":")``,
    ``ensure_ascii=False``): unambiguous whatever the seeds contain. ``part`` names a
    further shuffle of the same game (a sub-stream, e.g. ``"reshuffle-1"`` for Schiebe-Poker's
    first reshuffle of the discard pile): it is appended to the array,
    ``[VERSION, game_id, [seeds], part]``; ``None`` (the deck) appends nothing."""
    items: list[object] = [VERSION, game_id, list(client_seeds)]
    if part is not None:
        items.append(part)
    return json.dumps(items, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


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
            client_seeds: Sequence[str], part: str | None = None) -> list[_T]:
    """``cards`` in the game's deck order (the top card first): Fisher-Yates from the last
    place down, each place ``i`` swapped with place ``j``, a number of :func:`stream` taken
    modulo ``i + 1``; a number at or above the largest multiple of ``i + 1`` below 2**32 is
    skipped (no bias). ``part``: a further shuffle of the game (see :func:`message`)."""
    deck = list(cards)
    numbers = stream(server_seed, message(game_id, client_seeds, part))
    for i in range(len(deck) - 1, 0, -1):
        span = i + 1
        limit = (1 << 32) - (1 << 32) % span
        while (r := next(numbers)) >= limit:
            pass
        j = r % span
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def clean_phrase(phrase: str) -> str | None:
    """A player's client seed phrase as the tables use it: NFC, runs of white space made
    one space, trimmed; ``None`` if that leaves nothing. Raises ``ValueError`` if it holds a
    control, format or other invisible character, or is longer than :data:`PHRASE_MAX`
    characters (it is shown on everyone's screen)."""
    text = " ".join(unicodedata.normalize("NFC", phrase).split())
    if any(unicodedata.category(c)[0] in "CZ" and c != " " for c in text):
        raise ValueError("control or invisible character")
    if len(text) > PHRASE_MAX:
        raise ValueError(f"longer than {PHRASE_MAX} characters")
    return text or None


@dataclass(frozen=True)
class Published:
    """A server seed whose :func:`commitment` a table shows as its next game's:
    ``server_seed`` (:data:`SEED_BYTES` bytes, secret until a game dealt from it has
    ended) and ``published_at``, when the store recorded the commitment as published
    (Unix seconds, the store's clock)."""

    server_seed: bytes
    published_at: float

    @property
    def commitment(self) -> str:
        """SHA-256 of the server seed, 64 hex digits: what the table shows."""
        return commitment(self.server_seed)


@dataclass(frozen=True)
class Seal:
    """What seals one game's deck before its id is known: ``server_seed``
    (:data:`SEED_BYTES` bytes, secret until the game ends), ``client_seeds`` (one string
    per seated player, in seat order, public from the start) and ``published_at``, when
    the table published the seed's commitment as its next game's (Unix seconds, the
    store's clock; ``None``: a seed drawn at the start, not published before)."""

    server_seed: bytes
    client_seeds: tuple[str, ...]
    published_at: float | None = None

    @property
    def commitment(self) -> str:
        """SHA-256 of the server seed, 64 hex digits: shown at the start."""
        return commitment(self.server_seed)

    def deck(self, cards: Sequence[_T], game_id: int, part: str | None = None) -> list[_T]:
        """``cards`` (the kind's deck in notation order) as game ``game_id`` deals them,
        the top card first (:func:`shuffle`); ``part`` names a further shuffle of the game
        (:func:`message`)."""
        return shuffle(cards, self.server_seed, game_id, self.client_seeds, part)


def new_seal(players: Sequence[str], phrases: Mapping[str, str | None] | None = None,
             entropy: Callable[[int], bytes] = secrets.token_bytes,
             published: Published | None = None) -> Seal:
    """A fresh :class:`Seal` for ``players`` (handles in seat order): the server seed of
    ``published`` (the one whose commitment the table showed for this game), or without
    it one of ``entropy(SEED_BYTES)``; and for each player their phrase (``phrases``,
    keyed by handle in lower case; at most :data:`PHRASE_MAX` characters are used) or,
    without one, :data:`RANDOM_CLIENT_BYTES` random bytes as hex. ``entropy(n)`` returns
    ``n`` bytes: the OS's random source in play, a seeded generator in tests."""
    phrases = phrases or {}
    server_seed = published.server_seed if published is not None else entropy(SEED_BYTES)
    seeds = []
    for handle in players:
        phrase = phrases.get(handle.lower())
        seeds.append(phrase[:PHRASE_MAX] if phrase else entropy(RANDOM_CLIENT_BYTES).hex())
    return Seal(server_seed, tuple(seeds),
                published.published_at if published is not None else None)
