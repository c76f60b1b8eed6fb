"""Computer players (issue 15): what a policy may see, that every policy only ever takes
legal actions, and that the simulator plays real games, conserves CUBES and repeats with a
seed."""

from __future__ import annotations

import asyncio
import dataclasses
import random

import pytest

from bbspoker.bots.draw40.equity import EquityPolicy
from bbspoker.bots.draw40.observation import Observation, PublicLog, observe
from bbspoker.bots.draw40.policies import POLICIES, fallback, policy
from bbspoker.bots.draw40 import simulate
from bbspoker.rules import actions as act
from bbspoker.rules.cards import parse_cards
from bbspoker.rules.draw40.game import Draw40, Draw40Rules, Phase
from bbspoker.rules.events import Event
from bbspoker.store.wallet import MemoryWallet


@pytest.fixture
def table():
    """(game, logs): alice, bob and carol seated with 1,000 CUBES each, a game started."""
    wallet = MemoryWallet({h: 1000 for h in ("alice", "bob", "carol")})
    game = Draw40(wallet, Draw40Rules(between_games=0), rng=random.Random(5))
    logs = {h: PublicLog(h) for h in ("alice", "bob", "carol")}
    for h in logs:
        game.apply(h, act.Sit(), 0)
    events = game.apply("alice", act.Start(), 0)
    for log in logs.values():
        log.feed(events)
    return game, logs


def test_an_observation_has_room_for_no_hidden_card_but_ones_own():
    card_fields = {f.name for f in dataclasses.fields(Observation)
                   if "Card" in str(f.type)}
    assert card_fields == {"cards", "revealed"}


def test_a_player_observes_its_own_cards_and_the_public_table_only(table):
    game, logs = table
    obs = observe(game, "bob", logs["bob"], 0)
    assert obs.cards == game.cards_of("bob") and len(obs.cards) == 5
    assert obs.revealed == {}
    others = set(game.cards_of("alice")) | set(game.cards_of("carol"))
    assert not others & set(obs.cards)
    assert obs.active == ("alice", "bob", "carol") and obs.opponents == ("alice", "carol")
    assert (obs.pot, obs.round, obs.phase, obs.cubes) == (30, 1, Phase.BETTING, 990)
    assert obs.legal == () and obs.bet_range == (1, 200)   # alice is in turn, not bob
    assert observe(game, "alice", logs["alice"], 0).legal == (act.Bet, act.Pass)


def test_the_public_record_drops_what_is_meant_for_someone_else(table):
    game, logs = table
    log = logs["bob"]
    log.feed([Event("cards", "alice", {"cards": game.cards_of("alice")}, to="alice"),
              Event("inactive", "carol", {"why": "no_ante"}, to="carol")])
    for ev in (game.apply("alice", act.Bet(5), 0), game.apply("bob", act.Pass(), 0),
               game.apply("carol", act.Bet(5), 0)):
        log.feed(ev)
    assert [(s.handle, s.kind, s.value, s.raised) for s in log.seen] == [
        ("alice", "bet", 5, True), ("bob", "pass", 0, False), ("carol", "bet", 5, False)]
    for ev in (game.apply("alice", act.Discard(()), 0),):
        log.feed(ev)
    assert log.seen[-1][:3] == ("alice", "discard", 0)


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_every_policy_takes_only_legal_actions_and_games_end(name):
    others = [n for n in sorted(POLICIES) if n != name][:3]
    result = simulate([policy(name), *(policy(o) for o in others), policy(name)],
                      60 if name == "equity" else 400, seed=11)
    assert result.illegal == 0, result.illegal_examples
    assert result.conserved and result.games == sum(s.games for s in result.seats) / 5
    # Every CUBE a seat won, another lost (or the system took a pot nobody won).
    assert sum(s.total for s in result.seats) + result.to_system == 0


def test_a_seed_repeats_a_run_exactly():
    runs = [simulate([policy("random"), policy("equity"), policy("aggressive")], 40, seed=3)
            for _ in range(2)]
    assert [(s.total, s.squares) for s in runs[0].seats] == \
        [(s.total, s.squares) for s in runs[1].seats]
    other = simulate([policy("random"), policy("equity"), policy("aggressive")], 40, seed=4)
    assert [s.total for s in other.seats] != [s.total for s in runs[0].seats]


def test_the_simulator_refuses_a_table_it_cannot_seat():
    with pytest.raises(ValueError, match="between 2 and 5 players"):
        simulate([policy("calling")], 1)
    with pytest.raises(ValueError, match="unknown policy 'smart' \\(known: random"):
        policy("smart")


def test_equity_beats_the_calling_station_heads_up():
    result = simulate([policy("equity"), policy("calling")], 300, seed=7)
    equity = result.seats[0]
    assert equity.mean - equity.ci95 > 0, (equity.mean, equity.ci95)


def _obs(cards: str, *, legal=(act.Discard,), opponents=("bob",), round_=2, pot=40,
         bet_range=(1, 200), log=()) -> Observation:
    return Observation("alice", parse_cards(cards), tuple(legal), bet_range, 1000,
                       Phase.DISCARDING if act.Discard in legal else Phase.BETTING,
                       round_, pot, ("alice", *opponents), {}, tuple(log), Draw40Rules())


def test_equity_keeps_what_is_made_and_draws_to_improve_it():
    rng = random.Random(1)
    bot = EquityPolicy(samples=400, jitter=0)
    assert bot.decide(_obs("6+ 8+ 10+ J+ A+"), rng) == act.Discard(())      # a flush: pat
    two_pairs = bot.decide(_obs("K+ K* 9# 9- 5#", opponents=("bob", "carol")), rng)
    assert two_pairs == act.Discard(parse_cards("5#"))                      # for a full house
    assert set(bot.decide(_obs("5# 6- 9* A+ A*"), rng).cards) == set(parse_cards("5# 6- 9*"))


def test_equity_passes_rubbish_against_a_big_bet_and_raises_the_nuts():
    rng = random.Random(2)
    bot = EquityPolicy(jitter=0)
    rubbish = _obs("5# 6- 8* 10+ Q-", legal=(act.Bet, act.Pass), round_=3, pot=60,
                   bet_range=(200, 200), opponents=("bob", "carol"))
    assert bot.decide(rubbish, rng) == act.Pass()
    nuts = _obs("10+ J+ Q+ K+ A+", legal=(act.Bet, act.SeeHands, act.Pass), round_=3, pot=60,
                bet_range=(5, 200))
    decision = bot.decide(nuts, rng)
    assert isinstance(decision, act.SeeHands) and decision.amount == 200


def test_fallback_is_what_is_always_allowed():
    assert fallback(_obs("5# 6- 8* 10+ Q-")) == act.Discard(())
    assert fallback(_obs("5# 6- 8* 10+ Q-", legal=(act.Bet, act.Pass), bet_range=(5, 3))) \
        == act.Pass()
    assert fallback(_obs("5# 6- 8* 10+ Q-", legal=(act.Bet, act.Pass))) == act.Bet(1)


def test_bbspoker_sim_prints_each_seat_and_each_policy(capsys, monkeypatch):
    from bbspoker.cli import main
    monkeypatch.delenv("BBSPOKER_CONFIG", raising=False)
    assert main(["sim", "--games", "300", "--seed", "2",
                 "--policies", "calling,calling,random,aggressive"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("300 games of draw40, 4 players, ")
    assert out[0].endswith("illegal actions: 0")
    rows = [line.split() for line in out[2:]]
    assert [r[:2] for r in rows[:4]] == [["1", "calling"], ["2", "calling"], ["3", "random"],
                                         ["4", "aggressive"]]
    assert [r[:2] for r in rows[4:7]] == [["all", "calling"], ["all", "random"],
                                          ["all", "aggressive"]]


def test_bbspoker_sim_plays_every_kind_with_bots(capsys, monkeypatch):
    """``--game`` takes every kind of the bot registry, Hold'em included, with the kind's
    own default policies."""
    from bbspoker.cli import main
    monkeypatch.delenv("BBSPOKER_CONFIG", raising=False)
    assert main(["sim", "--game", "holdem", "--games", "40", "--seed", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("40 games of holdem, 2 players, ")
    assert out[0].endswith("illegal actions: 0")
    rows = [line.split() for line in out[2:4]]
    assert [r[:2] for r in rows] == [["1", "equity"], ["2", "calling"]]
    assert float(rows[0][2]) == -float(rows[1][2])        # heads-up: one's gain, other's loss


@pytest.mark.parametrize("argv, says", [
    (["--players", "3", "--policies", "random,calling"], "3 players but 2 policies"),
    (["--policies", "smart"], "unknown policy 'smart'"),
    (["--players", "6", "--policies", "random"], "between 2 and 5 players"),
    (["--game", "chess"], "no computer players for game kind 'chess'"),
])
def test_bbspoker_sim_refuses_a_table_it_cannot_seat_in_one_line(argv, says, capsys):
    from bbspoker.cli import main
    assert main(["sim", "--games", "1", *argv]) == 1
    assert says in capsys.readouterr().err


# ------------------------------------------------------------------ bots at a live table

async def _no_sleep(_seconds: float) -> None:
    await asyncio.sleep(0)


@pytest.fixture
async def live():
    """(service, wallet, start_bot): a running table service on a memory wallet with
    alice, bob (bot) and carol (bot) holding 1,000 CUBES; ``start_bot(handle, name)``
    seats a bot with that policy and runs it."""
    from bbspoker.bots.player import BotPlayer
    from bbspoker.table.bus import Bus
    from bbspoker.table.service import TableService
    from tests.support.telnetclient import FakeClock

    wallet = MemoryWallet({h: 1000 for h in ("alice", "bob", "carol")})
    service = TableService(Draw40(wallet, Draw40Rules(between_games=0), rng=random.Random(8)),
                           Bus(), FakeClock())
    tasks = [asyncio.create_task(service.run())]
    bots: dict[str, BotPlayer | None] = {}

    async def start_bot(handle: str, name: str) -> BotPlayer:
        bots[handle] = None                          # a bot from the moment it sits
        await service.call(handle, act.Sit())
        bot = bots[handle] = BotPlayer(
            service, handle, policy(name),
            lambda: [h for h in service.table.handles if h not in bots],
            rng=random.Random(len(bots)), sleep=_no_sleep)
        tasks.append(asyncio.create_task(bot.run()))
        return bot

    yield service, wallet, start_bot
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def test_bots_play_a_whole_game_with_a_person_through_the_table(live):
    from tests.support.telnetclient import wait_until
    service, wallet, start_bot = live
    await service.call("alice", act.Sit())
    bob, carol = await start_bot("bob", "equity"), await start_bot("carol", "calling")
    await service.call("alice", act.Start())
    games = 0
    while games < 3:                         # alice calls; the bots do what they do
        await wait_until(lambda: service.snapshot.current in ("alice", None)
                         or service.snapshot.view.phase is Phase.IDLE, timeout=10)
        snap = service.snapshot
        if snap.view.phase is Phase.IDLE:
            games += 1
            if snap.view.master == "alice":
                await service.call("alice", act.Start())
            else:
                await wait_until(lambda: service.snapshot.view.phase is not Phase.IDLE, timeout=10)
            continue
        legal = snap.actions["alice"]
        obs = observe(service.table, "alice", PublicLog("alice"), 0)
        await service.call("alice", fallback(obs) if act.Reveal in legal or act.Discard in legal
                           else act.Bet(snap.view.bet_ranges["alice"][0]))
    assert bob.illegal == carol.illegal == 0
    assert wallet.total() == 3000 and len([j for j in wallet.journal if j[3] == "win"]) >= 2


async def test_a_bot_master_opens_a_game_only_when_a_person_sits_at_the_table(live):
    from tests.support.telnetclient import wait_until
    service, wallet, start_bot = live
    await start_bot("bob", "calling")                # bob sits first: he is the master
    await start_bot("carol", "calling")
    for _ in range(20):
        await asyncio.sleep(0)
    assert service.snapshot.view.phase is Phase.IDLE and service.snapshot.view.master == "bob"
    await service.call("alice", act.Sit())
    await wait_until(lambda: service.snapshot.view.phase is not Phase.IDLE, timeout=5)
    assert wallet.balance("bob") <= 990                # his ante is in


def test_the_config_offers_exactly_the_policies_there_are():
    from bbspoker.bots.holdem import HOLDEM_POLICIES
    from bbspoker.bots.draw40.policies import POLICIES
    from bbspoker.bots.schiebe import SCHIEBE_POLICIES
    from bbspoker.bots.stud import STUD_POLICIES
    from bbspoker.config import BOT_POLICIES
    from bbspoker.rules.kinds import kind
    assert sorted(kind("draw40").config.bot_policies) == sorted(POLICIES)
    assert sorted(kind("holdem").config.bot_policies) == sorted(HOLDEM_POLICIES)
    assert sorted(kind("schiebe").config.bot_policies) == sorted(SCHIEBE_POLICIES)
    assert sorted(kind("stud").config.bot_policies) == sorted(STUD_POLICIES)
    assert set(BOT_POLICIES) == (set(POLICIES) | set(HOLDEM_POLICIES) | set(SCHIEBE_POLICIES)
                                 | set(STUD_POLICIES))
