"""The Hold'em table (fixed, pot or no limit) as one player or spectator sees it at 80x24,
in the family of the GV table: the seats with stacks and bets at the top, the board and
your hole cards in the middle, the command area and the game information side by side,
the message area below, the chat line last. Layout (rows 0-23, as the classic look shows
them; the rows are drawn in box drawing and suit symbols, :mod:`bbspoker.door.look`)::

    0  +- Limit Hold'em 10/20: <table> ----------------------- Hand 12, flop -+
         (No-limit Hold'em 5/10, Pot-limit Hold'em 5/10: the blinds)
    1  | 1 D  alice      985   10  <-     | 6    frank     1,000           |
    ..   seats 1-5 on the left, 6-9 on the right: button D, blinds SB/BB,
    5  |   stack, bet this round, in turn <-, fold, all-in, out, away       |
    6  | BOARD  [ A+ ] [ K* ] [10# ] [    ] [    ]     POT 135 (100 + 20)    |
    7  | YOU    [ Q+ ] [ J+ ]                                                 |
    8  +-------------------------------------------+-------------------------+
    9-12 commands: exactly the legal keys now      | turn, clock, street, pot
   13  +- alice [1,000 CUBES] [stack 985] ---------+-------------------------+
   14-22 the message area: every action as it happens, and the chat
   23  > chat input

Colours (a colour look): the title, the seat in turn highlighted, your own seat, the seats
out of the hand (folded, sitting out, away) dark, the cards with their suits' colours, the
pot, the game information's labels and values, the clock yellow in its last 30 s and red
in its last 10 s, a refusal in the command area red (:class:`~bbspoker.door.look.Pen`).

:class:`HoldemScreen` takes the game-screen loop of
:class:`~bbspoker.door.screens.base.TableScreen` (keys taken in the turn they arrive,
the table's bus painted in its step, the seat held when the connection drops, chat, [X],
a spectator's [J]) and draws rows (:mod:`bbspoker.door.screens.rows`). The game keys:
``F`` fold, ``C`` check or call (the amount shown), ``R`` bet or raise (fixed limit: the
fixed amount shown, nothing to type; pot and no limit: the range shown, and ``R`` asks
for the amount to raise to, Enter alone the smallest, Esc drops the question), ``A``
(pot and no limit) the largest bet or raise: all in, or at pot limit the pot, ``I`` sit
out / come back. :data:`KIND` is the kind as the door
shows it (entry with the buy-in, stakes, help, its events' words in
:mod:`bbspoker.door.screens.holdem_text`).
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any, cast

from bbspoker.door import i18n
from bbspoker.door.i18n import N_, NP_
from bbspoker.door.keys import Edit, Key, LineEditor
from bbspoker.door.look import Pen, clock_pen
from bbspoker.door.screens import holdem_text
from bbspoker.door.screens.base import ScreenKind, ask_buy_in
from bbspoker.door.screens.holdem_text import street_name
from bbspoker.door.screens.rows import (LEFT as _LEFT, RIGHT as _RIGHT, WIDTH, RowScreen,
                                        bottom_rows, command_lines, halves, row as _row)
from bbspoker.door.screens.tablerows import card, command_rows, info_rows
from bbspoker.rules import actions as act
from bbspoker.rules.events import RuleError
from bbspoker.rules.holdem.game import HoldemSeat, HoldemTable, Street
from bbspoker.rules.holdem.kind import HoldemConfig
from bbspoker.table.service import TableSnapshot
from bbspoker.text import clean_text, display_width, fit

if TYPE_CHECKING:
    from bbspoker.door.context import DoorContext
    from bbspoker.door.terminal import Player
    from bbspoker.table.registry import TableRef

__all__ = ["KIND", "HoldemScreen", "HELP"]

_SEAT_LEFT = 38       # a seat column's width inside the borders
#: What the raise prompt takes: digits (str.isdigit would take "²", which int() refuses).
_DIGITS = frozenset("0123456789")
#: Characters the raise prompt holds (a stack has at most 13 digits; more is refused).
_AMOUNT_CHARS = 16
_halves = halves


# The labels of the game information (the Schiebe-Poker screen has Turn and Clock too).
_TURN, _CLOCK = NP_("game info", "Turn"), NP_("game info", "Clock")
_STREET, _BUTTON = NP_("game info", "Street"), NP_("game info", "Button")
# A seat's state after its bet (at most 6 cells in every language).
_STATES = {"turn": NP_("seat state", "<-"), "all_in": NP_("seat state", "all-in"),
           "out": NP_("seat state", "out"), "fold": NP_("seat state", "fold"),
           "next": NP_("seat state", "next"), "away": NP_("seat state", "away")}
# The button and the blinds beside a seat's number (at most 2 cells).
_MARKS = {"button": NP_("seat mark", "D"), "small": NP_("seat mark", "SB"),
          "big": NP_("seat mark", "BB"), "button_small": NP_("seat mark", "DS"),
          "button_big": NP_("seat mark", "DB")}


def _box(notation: str | None) -> str:
    """A card, 6 cells, its suit as a glyph (:func:`~.tablerows.card`): ``[ A♠ ]``,
    ``[10♦ ]`` (``[ A+ ]``, ``[10# ]`` in the classic look); an empty place ``[    ]``."""
    return f"[{card(notation) if notation else '':^4}]"


class HoldemScreen(RowScreen):
    """One player's (or spectator's, ``watching``) Hold'em screen; see the module
    docstring."""

    # ----------------------------------------------------------------- keys

    def _game_key(self, char: str) -> None:
        actions = self.snapshot.actions.get(self.handle, ())
        board = self.snapshot.view_as(HoldemTable)
        fixed = board is None or board.limit == "fixed"
        if char == "f" and act.Pass in actions:
            self._command(act.Pass())
        elif char == "f" and act.CheckCall in actions:     # in turn, checking is free
            self.error = self.kind.refusal(RuleError("check_free"), self.t)
        elif char == "c" and act.CheckCall in actions:
            self._command(act.CheckCall())
        elif char == "r" and act.BetRaise in actions:
            if fixed:
                self._command(act.BetRaise())
            else:
                self.mode, self.editor = "raise", LineEditor(_AMOUNT_CHARS)
        elif char == "a" and act.BetRaise in actions and not fixed \
                and board.max_raise_to is not None:
            self._command(act.BetRaise(to=board.max_raise_to))
        elif char == "i" and act.SitOut in actions:
            me = self.snapshot.seat_as(HoldemSeat, self.handle)
            self._command(act.SitOut(out=not (me is not None and me.out)))

    def _mode_key(self, key: Key, char: str) -> None:
        if self.mode == "raise":
            self._edit_amount(key)

    def _edit_amount(self, key: Key) -> None:
        """A key at the raise prompt: Enter raises to the amount typed (alone: the
        smallest), Esc drops the prompt. What is not a whole number is refused
        (``raise_not_number``) and nothing is sent; the table refuses an amount out of
        the range with the range."""
        assert self.editor is not None
        result = self.editor.press(key)
        if result is Edit.CANCELLED:
            self.mode, self.editor = None, None
        elif result is Edit.DONE:
            text = self.editor.text.strip()
            self.mode, self.editor = None, None
            if text and not set(text) <= _DIGITS:
                self.error = self.kind.refusal(RuleError("raise_not_number"), self.t)
                return
            self._command(act.BetRaise(to=int(text) if text else None))

    def _on_snapshot(self, snap: TableSnapshot) -> None:
        """Drop the raise prompt once this player may no longer raise (the turn went
        away: a timeout)."""
        if self.mode == "raise" and act.BetRaise not in snap.actions.get(self.handle, ()):
            self.mode, self.editor = None, None

    def _between_games(self) -> bool:
        """Always: at Hold'em one who leaves folds the hand (or plays out an all-in) and
        the stack is cashed out when it ends, so a caller whose time is up leaves at once."""
        return True

    def _may_sit(self) -> bool:
        """A spectator may take a free seat at any time (dealt in from the next hand), or
        ask a computer player for theirs (it stands up between hands)."""
        snap = self.snapshot
        return not self._waits() and (len(snap.seats) < self.rules.seats or bool(snap.bots))

    def _clock_deadline(self) -> float | None:
        """Everyone sees the clock of the turn in play."""
        return self.snapshot.deadline if self.snapshot.current else None

    def _prompt(self) -> str | None:
        board = self.snapshot.view_as(HoldemTable)
        if self.mode == "raise" and self.editor is not None and board is not None \
                and board.raise_to is not None and board.max_raise_to is not None:
            t, n = self.t, self.t.number
            low, high = n(board.raise_to), n(board.max_raise_to)
            question = (t.gettext("Raise to ({low}-{high}; Enter: {low}): ") if self._facing_bet()
                        else t.gettext("Bet ({low}-{high}; Enter: {low}): "))
            return question.format(low=low, high=high) + self.editor.text + "_"
        if self.mode == "exit":
            me = self.snapshot.seat_as(HoldemSeat, self.handle)
            if me is not None and me.in_hand and not self.watching:
                return self.t.gettext("Leave? You fold this hand. (y/n)")
            return self.t.gettext("Really leave the table? (y/n)")
        return self.error

    # ----------------------------------------------------------------- drawing

    def rows(self) -> tuple[list[str], tuple[int, int]]:
        """The 24 rows of this screen now, and where the cursor goes (the input line);
        the colours named as they are drawn (see :meth:`_seat_pen`)."""
        snap = self.snapshot
        board = snap.view_as(HoldemTable)
        rules = self.rules
        t, num = self.t, self.t.number
        table = clean_text(self.entry.name, 20)
        name = _title(t, board, rules, table)
        where = (t.gettext("Hand {hand}, {street}").format(
            hand=num(board.hand or board.game_id), street=street_name(board.street.value, t))
            if board is not None and board.game_id is not None
            else t.gettext("{n} of {seats} seated").format(n=len(snap.seats),
                                                           seats=rules.seats))
        tail = " " + where + " ─┐"
        title = clean_text("┌─ " + name + " ", WIDTH - display_width(tail))
        rows = [title + "─" * max(0, WIDTH - display_width(title) - len(tail)) + tail]
        self.span(0, 3, min(display_width(name), display_width(title) - 4), Pen.TITLE)
        self.span(0, WIDTH - len(tail) + 1, display_width(where), Pen.VALUE)
        seats = {s.seat: s for s in snap.seats_as(HoldemSeat)}
        for n in range(5):
            left = self._seat_cell(snap, seats.get(n), n, 1 + n, 1)
            right = (self._seat_cell(snap, seats.get(n + 5), n + 5, 1 + n, _SEAT_LEFT + 2)
                     if n + 5 < rules.seats else "")
            rows.append(_halves(left, right, _SEAT_LEFT))
        rows += self._middle(snap, board)
        rows.append("├" + "─" * _LEFT + "┬" + "─" * _RIGHT + "┤")
        for left, right in zip(self._commands(snap, board), self._info(snap, board)):
            rows.append(_halves(left, right))
        me = snap.seat_as(HoldemSeat, self.handle)
        stack = (t.gettext("[stack {n}]").format(n=num(me.stack)) + " "
                 if me is not None and not self.watching else "")
        return bottom_rows(self, rows, stack)

    def _seat_cell(self, snap: TableSnapshot, s: HoldemSeat | None, n: int, row: int,
                   col: int) -> str:
        """One seat (``n``: 0-8), drawn on ``row`` from cell ``col``: number,
        button/blind, handle, stack, bet this round, state; the seat in its pen
        (:meth:`_seat_pen`), the cards shown at the showdown as cards."""
        t = self.t
        if s is None:
            return f"{n + 1}      " + t.gettext("(free)")
        code = ("button_" + s.blind if s.blind and s.button else "button" if s.button
                else s.blind or "")
        mark = clean_text(t.pgettext(*_MARKS[code]), 2) if code in _MARKS else ""
        # A bet takes 5 cells at fixed limit; at pot and no limit 7 (a whole stack), one
        # of them the handle's.
        fixed = self.rules.limit == "fixed"
        name = clean_text(s.handle, 10 if fixed else 9) + (
            "*" if s.handle.lower() == self.handle.lower() else "")
        running = snap.view_as(HoldemTable).game_id is not None
        how = ("turn" if s.current else "all_in" if s.all_in else
               "" if s.shown else "out" if s.out else
               "fold" if s.dealt and not s.in_hand else "next" if running and not s.dealt
               else "")                                 # a code of _STATES
        shown = " ".join(card(c) for c in s.shown or ())
        words = [shown] if s.shown else [t.pgettext(*_STATES[how])] if how else []
        if s.handle in snap.held:
            words.append(t.pgettext(*_STATES["away"]))
        bet = f"{t.number(s.bet):>{5 if fixed else 7}}" if s.bet else " " * (5 if fixed else 7)
        head = (f"{n + 1} {fit(mark, 2)} {fit(name, 11 if fixed else 10)}"
                f"{t.number(s.stack):>7} {bet} ")
        width = _SEAT_LEFT if col == 1 else WIDTH - _SEAT_LEFT - 3
        pen = self._seat_pen(snap, s, how)
        if pen is not Pen.DEFAULT:
            self.span(row, col, width, pen)
        if s.shown:
            self.span(row, col + 1 + display_width(head), display_width(shown), Pen.CARD)
        return head + " ".join(words)

    def _seat_pen(self, snap: TableSnapshot, s: HoldemSeat, how: str) -> Pen:
        """A seat's pen: the player in turn's, else a seat out of the hand (folded,
        sitting out, away) dark, else your own seat yours."""
        if s.current:
            return Pen.TURN
        if how in ("fold", "out") or s.handle in snap.held:
            return Pen.FOLDED
        return Pen.SELF if s.handle.lower() == self.handle.lower() else Pen.DEFAULT

    def _middle(self, snap: TableSnapshot, board: HoldemTable | None) -> list[str]:
        """Rows 6-7: the board and the pot; your hole cards."""
        community = board.community if board is not None else ()
        cards = " ".join(_box(community[i] if i < len(community) else None) for i in range(5))
        t, n = self.t, self.t.number
        pot = ""
        if board is not None and board.pot_total is not None:
            pot = t.gettext("POT {pot}").format(pot=n(board.pot_total))
            if len(board.pots) > 1:
                pot += " (" + " + ".join(n(p) for p in board.pots) + ")"
        # TRANSLATORS: the labels before the board and before your hole cards (at most
        # 7 cells each).
        board_label, you = clean_text(t.gettext("BOARD"), 7), clean_text(t.gettext("YOU"), 7)
        width = max(display_width(board_label), display_width(you)) + 2
        first = 2 + width                       # the first card's cell
        rows = [_row(" " + fit(board_label, width) + f"{cards}    {pot}")]
        self.span(6, 2, display_width(board_label), Pen.LABEL)
        for i in range(len(community)):
            self.span(6, first + 7 * i, 6, Pen.CARD)
        if pot:
            self.span(6, first + 38, min(display_width(pot), WIDTH - 1 - first - 38), Pen.POT)
        me = snap.seat_as(HoldemSeat, self.handle)
        running = board is not None and board.game_id is not None
        if self.watching:
            rows.append(_row(" " + t.gettext("You are watching this table.")))
            return rows
        self.span(7, 2, display_width(you), Pen.LABEL)
        if self.cards and me is not None and (me.dealt if running else not me.out):
            # Your cards of the hand in play, or of the last one until the next is dealt.
            hole = cast(tuple[str, ...], self.cards)      # Hold'em's cards are notation
            rows.append(_row(" " + fit(you, width) + " ".join(_box(c) for c in hole)))
            for i in range(len(hole)):
                self.span(7, first + 7 * i, 6, Pen.CARD)
        else:
            why = (t.gettext("You sit out with no chips: [X] to leave, then buy in again.")
                   if me is not None and me.out and not me.stack and not me.dealt
                   else t.gettext("You sit out: [I] to come back.")
                   if me is not None and me.out
                   else t.gettext("You are dealt in from the next hand."))
            rows.append(_row(" " + fit(you, width) + why))
        return rows

    def _facing_bet(self) -> bool:
        """Someone has bet in this betting round (preflop the big blind has): ``R``
        raises, else it bets."""
        return any(s.bet for s in self.snapshot.seats_as(HoldemSeat))

    def _commands(self, snap: TableSnapshot, board: HoldemTable | None) -> list[str]:
        """Four rows: the keys of exactly the legal choices now (at pot and no limit the
        range of ``R`` and the amount of ``A``), then the prompt (a question, or a
        refusal in red)."""
        t, n = self.t, self.t.number
        actions = () if self.watching else snap.actions.get(self.handle, ())
        lines: list[str] = []
        if act.CheckCall in actions and board is not None:
            turn = []
            if act.Pass in actions:
                turn.append(t.gettext("[F] fold"))
            turn.append(t.gettext("[C] call {amount}").format(amount=n(board.to_call))
                        if board.to_call else t.gettext("[C] check"))
            low, high = board.raise_to, board.max_raise_to
            if act.BetRaise in actions and low is not None:
                raising = self._facing_bet()
                if high is None or high == low:
                    turn.append(t.gettext("[R] raise to {amount}").format(amount=n(low))
                                if raising else
                                t.gettext("[R] bet {amount}").format(amount=n(low)))
                else:
                    turn.append((t.gettext("[R] raise to {low}-{high}") if raising
                                 else t.gettext("[R] bet {low}-{high}")).format(
                        low=n(low), high=n(high)))
                me = snap.seat_as(HoldemSeat, self.handle)
                if board.limit != "fixed" and high is not None and me is not None:
                    turn.append((t.gettext("[A] all in {amount}")
                                 if high == me.stack + me.bet
                                 else t.gettext("[A] pot {amount}")).format(amount=n(high)))
            lines += command_lines(turn)
        me = snap.seat_as(HoldemSeat, self.handle)
        broke = me is not None and me.out and not me.stack and not me.dealt
        if act.SitOut in actions and not broke:     # no chips: only [X] helps
            lines.append(t.gettext("[I] come back in") if me is not None and me.out
                         else t.gettext("[I] sit out from the next hand"))
        elif self.watching and self._may_sit():
            lines.append(t.gettext("[J] take a free seat"))
        return command_rows(t, lines, self._prompt(), self.mode not in ("exit", "raise"),
                            self.span, 9, self.exit_key)

    def _info(self, snap: TableSnapshot, board: HoldemTable | None) -> list[str]:
        """Four rows: whose turn, the clock (yellow in its last 30 s, red in its last
        10 s), the street and its bet (fixed limit; the blinds are in the title), the
        button."""
        t = self.t
        if board is None or board.game_id is None:
            return [t.gettext("No hand") if len(snap.seats) >= 2
                    else t.gettext("No hand: waiting for players"), "", "", ""]
        clock = self._clock_text() or ""
        size = board.big_bet if board.street in (Street.TURN, Street.RIVER) else board.small_bet
        street = street_name(board.street.value, t)
        return info_rows(t, [
            (_TURN, clean_text(snap.current or "", 14), Pen.VALUE),
            (_CLOCK, clock, clock_pen(self._remaining())),
            (_STREET, t.gettext("{street}, bets {size}").format(
                street=street, size=t.number(size)) if board.limit == "fixed"
             else street, Pen.VALUE),
            (_BUTTON, clean_text(board.button or "", 14), Pen.VALUE)], self.span, 9)


def _title(t: i18n.Translator, board: HoldemTable | None, rules: HoldemConfig,
           table: str) -> str:
    """The title's game and table: ``Limit Hold'em 10/20: <table>`` (the bets),
    ``No-limit Hold'em 5/10, ante 1: <table>`` (the blinds and any ante). The stakes are
    the table view's (the running hand's, else the next hand's: a table whose stakes
    rose shows the new ones), the config's before the table has a view."""
    if board is not None:
        limit, small, big, ante = board.limit, board.small_blind, board.big_blind, board.ante
        if limit == "fixed":
            small, big = board.small_bet, board.big_bet
    else:
        limit, ante = rules.limit, 0
        small, big = ((rules.small_bet, 2 * rules.small_bet) if limit == "fixed"
                      else (rules.small_bet // 2, rules.small_bet))
    if ante:
        text = (t.gettext("Limit Hold'em {small}/{big}, ante {ante}: {table}")
                if limit == "fixed" else
                t.gettext("No-limit Hold'em {small}/{big}, ante {ante}: {table}")
                if limit == "no" else
                t.gettext("Pot-limit Hold'em {small}/{big}, ante {ante}: {table}"))
    else:
        text = (t.gettext("Limit Hold'em {small}/{big}: {table}") if limit == "fixed" else
                t.gettext("No-limit Hold'em {small}/{big}: {table}") if limit == "no" else
                t.gettext("Pot-limit Hold'em {small}/{big}: {table}"))
    return text.format(small=t.number(small), big=t.number(big), ante=t.number(ante),
                       table=table)


def _intro(t: i18n.Translator, entry: TableRef, app: DoorContext, handle: str) -> list[str]:
    """The entry's first lines: the game and its betting structure, its blinds and the
    buy-in, the ANSI notice."""
    config: HoldemConfig = entry.spec.config
    n = t.number
    low, high = config.buy_in_range()
    sb, bb = n(config.small_bet // 2), n(config.small_bet)
    if config.limit == "fixed":
        game = t.gettext("{table} -- fixed-limit Texas Hold'em {small}/{big} for CUBES, "
                         "2-{seats} players").format(table=entry.name, small=n(config.small_bet),
                                                     big=n(2 * config.small_bet),
                                                     seats=config.seats)
        how = t.gettext("Blinds {sb}/{bb}; one bet and three raises a round. "
                        "You bring {low}-{high} CUBES to the table.")
    else:
        game = (t.gettext("{table} -- no-limit Texas Hold'em {small}/{big} for CUBES, "
                          "2-{seats} players") if config.limit == "no" else
                t.gettext("{table} -- pot-limit Texas Hold'em {small}/{big} for CUBES, "
                          "2-{seats} players")).format(table=entry.name, small=sb, big=bb,
                                                       seats=config.seats)
        how = (t.gettext("Blinds {sb}/{bb}; bet or raise any amount up to your whole stack. "
                         "You bring {low}-{high} CUBES to the table.") if config.limit == "no"
               else t.gettext("Blinds {sb}/{bb}; bet or raise any amount up to the pot. "
                              "You bring {low}-{high} CUBES to the table."))
    return ["", game,
            *textwrap.wrap(how.format(sb=sb, bb=bb, low=n(low), high=n(high)), WIDTH - 1), "",
            t.gettext("Note: this game uses ANSI terminal escape sequences."), ""]


def _stakes(rules: Any, t: i18n.Translator) -> str:
    """The table list's stakes: ``10/20 limit`` (the bets), ``5/10 no limit``, ``5/10 pot
    limit`` (the blinds)."""
    n = t.number
    if rules.limit == "fixed":
        return t.gettext("{small}/{big} limit").format(small=n(rules.small_bet),
                                                       big=n(2 * rules.small_bet))
    return (t.gettext("{small}/{big} no limit") if rules.limit == "no"
            else t.gettext("{small}/{big} pot limit")).format(small=n(rules.small_bet // 2),
                                                              big=n(rules.small_bet))


def _still_seated(t: i18n.Translator, snap: TableSnapshot, handle: str) -> str | None:
    """One who left during a hand they are still in keeps the seat and stack until it
    ends (docs/rules.md): there is no seat to join yet, only the hand to watch."""
    me = snap.seat_as(HoldemSeat, handle)
    if me is None:
        return None
    return t.gettext("You are still seated here until the hand in play ends (stack {stack} "
                     "CUBES); then you may sit down again.").format(stack=t.number(me.stack))


async def _buy_in(session: Player, app: DoorContext, entry: TableRef) -> act.Sit | None:
    """The buy-in question (:func:`~bbspoker.door.screens.base.ask_buy_in`) with this
    table's range."""
    config: HoldemConfig = entry.spec.config
    return await ask_buy_in(session, app, *config.buy_in_range())


HELP = N_("""\
Hold'em in short (fixed-limit Texas Hold'em, 52 cards, 2 to 9 players)

 - Sitting down you bring CUBES to the table (the buy-in): only that stack
   plays, and leaving the table cashes it out.
 - The two seats after the button post the small and the big blind; everyone
   gets two hidden cards.
 - Four betting rounds: preflop, then the flop (three cards on the board), the
   turn (a fourth) and the river (a fifth). The small bet counts preflop and on
   the flop, the big bet (twice as much) on the turn and the river.
 - One bet and three raises a round at most. [F] folds, [C] checks or calls,
   [R] bets or raises.
 - No-limit and pot-limit tables: bet or raise any amount from the big blind
   (a raise: by at least the last raise) up to your stack, or up to the pot.
   [R] asks for the amount (Enter alone: the smallest), [A] bets all you may.
 - Showdown: the best five of your two cards and the five on the board win;
   equal hands split the pot. Suits never decide.
 - When your time runs out, the clock folds (or checks) for you.
 - [I] sits out and comes back, [.] chats with the table, [X] leaves it.
""")

#: The fixed-limit Hold'em kind as the door shows it.
KIND = ScreenKind(
    name="holdem", screen=HoldemScreen, title=N_("Hold'em"),
    phrase=N_("Texas Hold'em"), help=HELP, intro=_intro, stakes=_stakes,
    describe_event=holdem_text.describe_event,
    describe_operation=holdem_text.describe_operation,
    refusals=holdem_text.REFUSALS,
    seated=N_("At the table ({taken} of {seats} seats): {names}"),
    nobody=N_("Nobody is at this table right now."),
    bots_stand_up=N_("All {seats} seats are taken; a computer player stands up for you "
                     "between hands."),
    still_seated=_still_seated, buy_in=_buy_in)
HoldemScreen.kind = KIND
