"""The registry of game kinds (rules/kinds.py): each kind declared once, in its own
package, and found by its name; its config checks its own keys; its factory makes a game
that the table service can run through the rules' interface alone."""

from __future__ import annotations

import dataclasses
import importlib

import pytest

from bbspoker.rules import actions as act
from bbspoker.rules.base import GameRules, KindConfig, SettingError
from bbspoker.rules.kinds import DEFAULT_KIND, KINDS, UnknownKind, kind, names
from bbspoker.store.sqlite import Ledger
from bbspoker.table.registry import TableWallet


def test_every_kind_is_declared_in_its_own_package_and_found_by_its_name():
    assert names() == ("draw40", "schiebe", "holdem", "stud") and DEFAULT_KIND == "draw40"
    for spec in KINDS:
        assert kind(spec.name) is spec
        own = importlib.import_module(f"bbspoker.rules.{spec.name}.kind")
        assert spec in vars(own).values()
        assert spec.config.__module__ == own.__name__ and spec.config.kind == spec.name
        assert len(spec.deck) in (40, 52) and spec.title


def test_an_unknown_kind_is_refused_naming_the_kinds_there_are():
    with pytest.raises(UnknownKind) as info:
        kind("bridge")
    assert str(info.value) == "unknown game kind 'bridge' (known: draw40, schiebe, holdem, stud)"
    assert isinstance(info.value, LookupError)


def test_each_kind_makes_a_game_with_a_frozen_public_view(tmp_path):
    ledger = Ledger(tmp_path / "kinds.db")
    for h in ("ann", "bob"):
        ledger.create_account(h, None, 5000)
    for spec in KINDS:
        game = spec.make(spec.config(), TableWallet(ledger, spec.name), None)
        assert isinstance(game, GameRules) and game.kind == spec.name
        for h in ("ann", "bob"):
            game.apply(h, act.Sit(), 0.0)
        assert [s.handle for s in game.seats()] == ["ann", "bob"]
        view = game.view(ledger.balances_of(["ann", "bob"]))
        assert dataclasses.is_dataclass(view)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(view, dataclasses.fields(view)[0].name, None)
        game.stop_dealing()          # every kind has it (most have nothing to stop)
        game.resync()
    ledger.close()


def test_a_kind_config_takes_the_table_defaults_it_wants_and_checks_its_keys():
    draw40, schiebe, holdem = (kind(n).config for n in ("draw40", "schiebe", "holdem"))
    defaults = {**dataclasses.asdict(draw40()), "seats": 5, "ante": 20, "bots": 2,
                "turn_timeout": 45.0, "rounds": 5}
    s = schiebe.from_keys(defaults, {})
    assert (s.seats, s.ante, s.bots, s.rounds, s.turn_timeout, s.bot_policy) == \
        (4, 0, 0, 5, 45.0, "lookahead")
    h = holdem.from_keys(defaults, {"small_bet": 20})
    assert (h.seats, h.bots, h.small_bet, h.buy_in_range()) == (9, 0, 20, (400, 2000))
    d = draw40.from_keys(defaults, {"max_bet": 500, "rounds": 7})     # rounds: not its key
    assert (d.ante, d.max_bet, d.seats) == (20, 500, 5) and not hasattr(d, "rounds")
    for config, message in [
            (draw40(seats=6), "seats must be between 2 and 5, got 6"),
            (draw40(min_bet=300), "min_bet (300) is above max_bet (200)"),
            (schiebe(seats=5), "seats must be between 2 and 4 for schiebe, got 5"),
            (holdem(small_bet=15), "small_bet must be even"),
            (holdem(bot_policy="lookahead"), "bot_policy must be one of equity, calling, "
                                             "random for holdem, got 'lookahead'"),
            (draw40(bots=6), "bots (6) is more than seats (5)")]:
        with pytest.raises(SettingError, match=message.replace("(", r"\(").replace(")", r"\)")):
            config.check()
    assert isinstance(draw40(), KindConfig)
