"""The draw40 table as one player (or spectator) sees it: the game screen of chapter 2
(:class:`PokerScreen`: the loop of :class:`~bbspoker.door.screens.base.TableScreen`, the
keys of chapter 2.4, a :class:`~bbspoker.door.screens.regions.GameView` drawn by the
:class:`~bbspoker.door.screens.regions.ScreenRenderer`) and the kind's
:data:`KIND`: its entry text, its stakes in the table list, its help, its events' words
(:mod:`bbspoker.door.screens.draw40_text`).

The game keys: ``S`` opens the game (the game-master), ``B`` bets (a prompt for the
amount, Enter alone calls), ``H`` bets and asks to see hands, ``P`` passes (after a
question), ``1``-``5`` choose the cards to discard and ``D`` discards them, ``R``
reveals the hand at the showdown.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from bbspoker.door import i18n
from bbspoker.door.i18n import N_
from bbspoker.door.keys import Edit, Key, KeyKind, LineEditor
from bbspoker.door.screens import draw40_text
from bbspoker.door.screens.draw40_text import round_label
from bbspoker.door.screens.base import ScreenKind, TableScreen
from bbspoker.door.screens.regions import GameView, Opponent, ScreenRenderer
from bbspoker.rules import actions as act
from bbspoker.rules.draw40.game import Draw40View, Phase
from bbspoker.rules.events import RuleError
from bbspoker.table.service import TableSnapshot

if TYPE_CHECKING:
    from bbspoker.door.context import DoorContext
    from bbspoker.door.terminal import Player
    from bbspoker.table.registry import TableRef

__all__ = ["KIND", "PokerScreen", "COMMAND_TEXT", "HELP"]

#: What the bet prompt takes (str.isdigit would take "²" and "①", which int() refuses).
DIGITS = frozenset("0123456789")

#: Command-area lines, in the order of chapter 2.4 (English; the screen translates them).
COMMAND_TEXT = {
    act.Start: N_("[S] Open the game"),
    act.Bet: N_("[B] Place bet"),
    act.SeeHands: N_("[H] See hands!"),
    act.Pass: N_("[P] Pass"),
    act.Discard: N_("[1]-[5] Discard, [D] Done"),
    act.Reveal: N_("[R] Reveal hand"),
}
ALWAYS = (N_("[.] Send a chat message"), N_("[X] Exit the game"))
#: One sitting out at a tournament table (away: every turn given up) comes back with [I].
COME_BACK = N_("[I] come back in")
TAKE_SEAT = N_("[J] Take a free seat")


#: The info area's round in a language, made once per (phase, round, language).
_round_label = functools.lru_cache(maxsize=256)(round_label)


@functools.lru_cache(maxsize=512)
def _command_lines(t: i18n.Translator, more: tuple[str, ...]) -> tuple[str, ...]:
    """The command area's lines in ``t``'s language: :data:`ALWAYS`, then ``more`` (the
    English texts of the commands open now); made once per language and set of commands,
    not on every paint."""
    return tuple(map(t.gettext, ALWAYS + more))


@functools.lru_cache(maxsize=512)
def _action_lines(t: i18n.Translator, actions: tuple[type[act.Action], ...]) -> tuple[str, ...]:
    """:func:`_command_lines` for a player who may use ``actions`` now (the snapshot's
    tuple of action types, :data:`COMMAND_TEXT`'s keys)."""
    return _command_lines(t, tuple(COMMAND_TEXT[a] for a in actions))


#: The discards of a view when none are chosen (most paints): one object, no new set.
_NO_DISCARDS: frozenset[Any] = frozenset()


def _opponents(snap: TableSnapshot, handle: str | None) -> tuple[Any, tuple[Opponent, ...]]:
    """(the seat of ``handle`` or None, the :class:`Opponent` of every other seat) in
    ``snap``; ``handle`` None for a spectator (who sees every seat)."""
    me = None if handle is None else snap.seat_of(handle)
    in_game = snap.view_as(Draw40View).phase is not Phase.IDLE
    held, bots = snap.held, snap.bots
    # tuple.__new__: an Opponent without the call of its generated __new__ (every seat,
    # every screen, every paint).
    return me, tuple(_new_tuple(Opponent, (s.handle, in_game and s.active, s.revealed,
                                           s.handle in held,
                                           bool(bots) and s.handle.lower() in bots))
                     for s in snap.seats if s is not me)


_new_tuple = tuple.__new__


class PokerScreen(TableScreen[GameView]):
    """The draw40 game screen of one seated player (chapter 2.1-2.8), or of a spectator
    (``watching``); see the module docstring."""

    def __init__(self, session: Player, app: DoorContext, entry: TableRef,
                 watching: bool = False, returning: bool = False,
                 want_seat: bool = False) -> None:
        self.discards: set[Any] = set()
        self._digits_only = False  # a key other than 0-9 was typed at the bet prompt
        super().__init__(session, app, entry, watching, returning, want_seat)

    def _make_renderer(self) -> ScreenRenderer:
        return ScreenRenderer(self.session.term, self.session.encoding, self.session.look)

    # ----------------------------------------------------------------- keys

    def _on_snapshot(self, snap: TableSnapshot) -> None:
        """Forget the chosen discards once discarding is over, and a bet or pass prompt
        whose turn went away (a timeout)."""
        if not self.watching and act.Discard not in snap.actions.get(self.handle, ()):
            self.discards.clear()
        if self.mode in ("bet", "hands", "pass") and not snap.actions.get(self.handle):
            self.mode, self.editor = None, None

    def _between_games(self) -> bool:
        """Whether leaving now costs the player nothing of a game (no game runs, or they
        are out of it: passed, or seated after it began)."""
        if self.snapshot.view_as(Draw40View).phase is Phase.IDLE:
            return True
        me = _opponents(self.snapshot, self.handle)[0]
        return me is None or not me.active

    def _may_sit(self) -> bool:
        """A spectator may take a free seat between games, or ask a computer player for
        theirs (at any time: they stand up between games)."""
        snap = self.snapshot
        if self._waits():
            return False
        return (snap.view_as(Draw40View).phase is Phase.IDLE
                and len(snap.seats) < self.rules.seats) \
            or bool(snap.bots)

    def _clock_deadline(self) -> float | None:
        """This player's own count-down: their turn in a game, or the game-master's time
        to start one."""
        snap, table = self.snapshot, self.snapshot.view_as(Draw40View)
        mine = (snap.current == self.handle if table.phase is not Phase.IDLE
                else table.master == self.handle)
        return snap.deadline if mine else None

    def _mode_key(self, key: Key, char: str) -> None:
        if self.mode == "pass":
            self.mode = None
            if char and self.t.answer(char):
                self._command(act.Pass())
        elif self.mode in ("bet", "hands"):
            self._edit_amount(key)

    def _edit_chat(self, key: Key) -> None:
        super()._edit_chat(key)
        if self.mode != "chat":
            self._digits_only = False

    def _game_key(self, char: str) -> None:
        actions = self.snapshot.actions.get(self.handle, ())
        if char == "s" and act.Start in actions:
            self._command(act.Start())
        elif char in ("b", "h") and (act.Bet if char == "b" else act.SeeHands) in actions:
            self.mode = "bet" if char == "b" else "hands"
            # The running stakes: a tournament's level raises the bet limit.
            self.editor = LineEditor(len(str(self.snapshot.rules.max_bet)))
        elif char == "p" and act.Pass in actions:
            self.mode = "pass"
        elif char and char in "12345" and act.Discard in actions:
            hand = self.cards
            card = hand[int(char) - 1]
            if card in self.discards:
                self.discards.remove(card)
            elif len(self.discards) >= self.rules_max_discard:
                self.error = self.kind.refusal(RuleError("discard_max", max=self.rules_max_discard), self.t)
            else:
                self.discards.add(card)
        elif char == "d" and act.Discard in actions:
            chosen, self.discards = tuple(self.discards), set()
            self._command(act.Discard(chosen))
        elif char == "r" and act.Reveal in actions:
            self._command(act.Reveal())
        elif char == "i":
            me = self.snapshot.seat_of(self.handle)
            if me is not None and getattr(me, "out", False):
                self._command(act.SitOut(out=False))

    def _edit_amount(self, key: Key) -> None:
        """A key at the bet prompt: digits only; Enter bets what was typed (alone: calls,
        the lowest bet), Esc drops the prompt."""
        assert self.editor is not None
        if key.kind is KeyKind.CHAR and key.char not in DIGITS:
            self._digits_only = True                 # the bet prompt takes 0-9 only: say so
            return
        result = self.editor.press(key)
        if result is Edit.CANCELLED:
            self.mode, self.editor, self._digits_only = None, None, False
        elif result is Edit.DONE:
            mode, text = self.mode, self.editor.text
            self.mode, self.editor = None, None
            self._digits_only = False
            low, _ = self.snapshot.view_as(Draw40View).bet_ranges.get(self.handle, (1, 0))
            amount = int(text) if text else low    # Enter alone calls
            self._command(act.SeeHands(amount) if mode == "hands" else act.Bet(amount))

    # ----------------------------------------------------------------- output

    def view(self) -> GameView:
        """The :class:`GameView` of this player's screen now."""
        snap, table = self.snapshot, self.snapshot.view_as(Draw40View)
        me, opponents = _opponents(snap, None if self.watching else self.handle)
        in_game = table.phase is not Phase.IDLE
        my_cards = None
        message = None
        if self.watching:
            message = self._watching_message(opponents[4:])
        elif in_game:
            if me is not None and me.active:
                my_cards = self.cards or None
            elif me is not None and self.cards:
                message = self.t.gettext("You are out of this game. You may join the next game.")
            else:
                message = self.t.gettext("A game is running. You may join the next game.")
        elif me is not None and me.revealed:
            # Revealed cards stay on show until the next game starts: one's own too, as
            # the seat shows them to everyone (not the hand last sent, which may be gone).
            my_cards = me.revealed
        if self.watching:
            commands = _command_lines(self.t, (TAKE_SEAT,) if self._may_sit() else ())
        else:
            commands = _action_lines(self.t, snap.actions.get(self.handle, ()))
            if me is not None and me.out:            # away at a tournament table
                commands = (*commands, self.t.gettext(COME_BACK))
        clock = self._clock_text()
        shown = self._shown
        if shown is None:
            shown = self._shown = tuple(self.messages)
        return GameView(
            handle=self.handle,
            cubes=self._own_cubes if self.watching else snap.balances.get(self.handle, 0),
            opponents=opponents,
            master=table.master,
            current=snap.current,
            pot=snap.pot,
            round_label=_round_label(table.phase.value, table.round, self.t),
            xmsg_count=len(self.session.inbox),
            watchers=snap.watchers,
            chips=bool(getattr(snap.rules, "tournament", False)),
            tournament=self.tournament_line(),
            my_cards=my_cards,
            discards=frozenset(self.discards) if self.discards else _NO_DISCARDS,
            player_message=message,
            commands=commands,
            prompt=self._prompt(),
            clock=clock,
            messages=shown,
            message_count=self.message_count,
            chat_input=self.editor.text if self.mode == "chat" and self.editor else None,
            lang=self.t.lang,
        )

    def tournament_line(self) -> tuple[str, ...]:
        """The forms of the tournament line in the status border, fullest first: none at
        a cash table (a tournament table's screen gives them,
        :func:`bbspoker.door.tournaments.compact_lines`)."""
        return ()

    @property
    def rules_max_discard(self) -> int:
        """Cards one may discard (chapter 2, 0-3)."""
        return self.snapshot.rules.max_discard

    def _watching_message(self, more: tuple[Opponent, ...]) -> str:
        """The spectator's player area: the seated players region (1) has no row for,
        then what the spectator may do (:func:`_watching_text`)."""
        waits = self._waits()
        return self._watching_text(self.t, more, waits, not waits and self._may_sit())

    @staticmethod
    @functools.lru_cache(maxsize=1024)
    def _watching_text(t: i18n.Translator, more: tuple[Opponent, ...], waits: bool,
                       may_sit: bool) -> str:
        """:meth:`_watching_message`'s text, made once per language and state (it is
        needed at every spectator's every paint)."""
        _ = t.gettext
        lines = []
        for opp in more:
            state = (_("Also seated: {h} (revealed).") if opp.revealed
                     else _("Also seated: {h} in the game.") if opp.competing
                     else _("Also seated: {h}."))
            lines.append(state.format(h=opp.handle))
        lines.append(_("You are watching this table.") + " " + (
            _("You have the next free seat.") if waits
            else _("[J] takes a free seat.") if may_sit
            else _("You may take a free seat between games.")))
        return " ".join(lines)

    def _prompt(self) -> str | None:
        if self.mode in ("bet", "hands") and self.editor is not None:
            _ = self.t.gettext
            low, high = self.snapshot.view_as(Draw40View).bet_ranges.get(self.handle, (1, 0))
            head = _("[H] Bet") if self.mode == "hands" else _("Bet")
            hint = _("digits only") if self._digits_only else _("Enter calls")
            return _("{head} ({low}-{high}, {hint}): ").format(
                head=head, low=self.t.number(low), high=self.t.number(high),
                hint=hint) + f"{self.editor.text}_"
        if self.mode == "pass":
            return self.t.gettext("Really pass? (y/n)")
        if self.mode == "exit":
            me = self.snapshot.seat_of(self.handle)
            running = self.snapshot.view_as(Draw40View).phase is not Phase.IDLE
            if not self.watching and running and me and me.active:
                return self.t.gettext("Leave? Bets stay in the pot. (y/n)")
            return self.t.gettext("Really leave the table? (y/n)")
        return self.error


def _intro(t: i18n.Translator, entry: TableRef, app: DoorContext, handle: str) -> list[str]:
    """The entry's first lines: the game and its stakes, the ANSI notice."""
    rules = entry.spec.config
    n = t.number
    return ["", t.gettext("{table} -- 40-card European draw poker for CUBES").format(
                table=entry.name),
            t.gettext("Ante {ante} CUBES, bets {low}-{high} CUBES.").format(
                ante=n(rules.ante), low=n(rules.min_bet), high=n(rules.max_bet)), "",
            t.gettext("Note: this game uses ANSI terminal escape sequences. If your "
                      "terminal shows"),
            t.gettext("garbage, please use another terminal program."), ""]


def _stakes(rules: Any, t: i18n.Translator) -> str:
    """The table list's stakes: ``ante 10, 1-200``."""
    n = t.number
    return t.gettext("ante {ante}, {low}-{high}").format(ante=n(rules.ante),
                                                          low=n(rules.min_bet),
                                                          high=n(rules.max_bet))


HELP = N_("""\
PoKeR in short (40-card European draw poker; the full rules: chapter 3)

 - The pack has 40 cards: the 2s, 3s and 4s are taken out. A-K-Q-J-10-9-8-7-6-5.
 - Up to five players sit at the table. The game-master starts a game with [S];
   everyone seated pays the ante (10 CUBES) into the pot and gets five cards.
 - Round 1: bet with [B] (at least the last bet, at most 200 CUBES; Enter alone
   calls) or pass with [P]. Bets leave your CUBES at once.
 - Discarding interval: select up to three cards with [1]-[5], confirm with [D].
 - Rounds 3 and on: bet again; [H] then a bet asks to see hands (showdown).
 - Showdown: reveal your hand with [R]; the best hand takes the whole pot.
 - Hands, best first: royal flush, straight flush, four of a kind, full house,
   flush, straight (8-7-6-5-A is the lowest), three of a kind, two pairs,
   one pair, high card. Suits decide only between equal hands: + * # -
 - You have one minute to act (three minutes for a master to start a game).
 - [.] chats with the table, [X] leaves it. Money left in the pot stays there.
""")

#: The draw40 kind as the door shows it.
KIND = ScreenKind(
    name="draw40", screen=PokerScreen, title=N_("40-card draw"),
    phrase=N_("40-card draw poker at five seats"), help=HELP, intro=_intro, stakes=_stakes,
    describe_event=draw40_text.describe_event,
    describe_operation=draw40_text.describe_operation,
    refusals=draw40_text.REFUSALS,
    seated=N_("At the poker table ({taken} of {seats} seats): {names}"),
    nobody=N_("Nobody is using the poker game right now."), watchers=True,
    bots_stand_up=N_("All {seats} seats are taken; a computer player stands up for you "
                     "between games."),
    master=lambda snap: snap.view_as(Draw40View).master)
PokerScreen.kind = KIND
