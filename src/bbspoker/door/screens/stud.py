"""The fixed-limit seven-card stud table as one player or spectator sees it at 80x24, in
the family of the Hold'em table: a row per seat with its up cards face up and its down
cards face down (yours face up to you alone), the pot, the command area and the game
information side by side, the message area below, the chat line last. Layout (rows
0-23, as the classic look shows them; the rows are drawn in box drawing and suit symbols,
:mod:`bbspoker.door.look`)::

    0  +- Stud 10/20: <table> --------------------------- Hand 12, third street -+
    1  | 1 D  alice*      997       (A+ )(K* ) [ 7*]                       <-    |
    2  | 2 BI bob         994     3 (?? )(?? ) [ 2#]                             |
    3  | 3    carol       997       (?? )(?? ) [Q+ ]                             |
    ..   seats 1-7: dealer D (bring-in BI on third street), handle (you: *), stack,
    7  |   bet this round, down cards ( ), up cards [ ], in turn <-, fold, all-in...
    8  +- POT 12 -----------------------------------+-------------------------------+
    9-12 commands: exactly the legal keys now      | turn, clock, street, bring-in
   13  +- alice [1,000 CUBES] [stack 997] ---------+-------------------------------+
   14-22 the message area: every action as it happens, and the chat
   23  > chat input

Your own down cards come from the table's ``PrivateCards`` (only to you); everyone else's
are counted, never named, until they are shown at the showdown (then all seven, in the
order dealt). :func:`render_table` draws rows 0-12 from the table's snapshot, your own
cards and your language alone (the seat rows, the pot, the keys, the information), and
names their colours: the cards face up with their suits' colours, the others' down cards
as card backs, the seat in turn highlighted, yours, the seats out of the hand dark, the
pot, the game information, the clock yellow then red, a refusal red;
:class:`StudScreen` is the game-screen loop around it. The game keys: ``C`` posts the
bring-in, checks or calls (the amount shown), ``R`` completes, bets or raises (the fixed
amount shown, nothing to type), ``F`` (or ``P``) folds -- not while the bring-in is due
(the lowest up card must open) nor when checking is free -- and ``I`` sits out / comes
back. :data:`KIND` is the kind as the door shows it (:func:`intro`, :func:`stakes`,
:func:`still_seated`, the buy-in question and :data:`HELP` are what the lobby says of a
stud table; the events' words are in :mod:`bbspoker.door.screens.stud_text`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bbspoker.door import i18n
from bbspoker.door.i18n import N_, NP_, Translator
from bbspoker.door.look import Pen, clock_pen
from bbspoker.door.screens import stud_text
from bbspoker.door.screens.base import ScreenKind, ask_buy_in
from bbspoker.door.screens.rows import (LEAVE_KEY, LEFT as _LEFT, RIGHT as _RIGHT, TEXT as _TEXT, WIDTH,
                                        RowScreen, bottom_rows, command_lines,
                                        halves as _halves, row as _row)
from bbspoker.door.screens.tablerows import (InfoLine, Span, card, command_rows, info_rows,
                                             no_span)
from bbspoker.door.screens.stud_text import street_name
from bbspoker.rules import actions as act
from bbspoker.rules.events import RuleError
from bbspoker.rules.stud.game import Street, StudRules, StudSeat, StudTable
from bbspoker.rules.stud.kind import StudConfig
from bbspoker.table.service import TableSnapshot
from bbspoker.text import clean_text, display_width, fit, wrap

if TYPE_CHECKING:
    from bbspoker.door.context import DoorContext
    from bbspoker.door.terminal import Player
    from bbspoker.table.registry import TableRef

__all__ = ["KIND", "render_table", "StudScreen", "intro", "stakes", "still_seated", "HELP",
           "TITLE", "PHRASE", "TABLE_ROWS"]

#: The rows :func:`render_table` draws (0-12); the status line, log and chat line follow.
TABLE_ROWS = 13
_SEATS = 7            # rows 1-7, one per seat (a stud table has 2-7)
_POT_ROW = _SEATS + 1     # the divider with the pot; the command area follows
_CARDS = 37           # the cards of a seat: 7 boxes of 5 cells and 2 blanks between groups

#: The game as the lobby names it, and as a sentence names what its tables play.
TITLE = N_("7-card stud")
PHRASE = N_("fixed-limit seven-card stud")

# The labels of the game information (at most 8 cells in every language).
_TURN, _CLOCK = NP_("game info", "Turn"), NP_("game info", "Clock")
_STREET, _ANTE = NP_("game info", "Street"), NP_("game info", "Ante")
_BRING_IN, _BETS = NP_("game info", "Bring-in"), NP_("game info", "Bets")
# A seat's state after its cards (at most 6 cells), as at the Hold'em table.
_STATES = {"turn": NP_("seat state", "<-"), "all_in": NP_("seat state", "all-in"),
           "out": NP_("seat state", "out"), "fold": NP_("seat state", "fold"),
           "next": NP_("seat state", "next"), "away": NP_("seat state", "away")}
# The dealer, and on third street the bring-in, beside a seat's number (at most 2 cells).
_DEALER, _BRINGER = NP_("seat mark", "D"), NP_("seat mark", "BI")


_CARD_WIDTH = 5      # a card's cells, ``[A♠ ]`` or ``(?? )``
_PLATE = 30          # a seat's number, mark, handle, stack and bet: cells 1-30 of its row
_CARDS_COL = _PLATE + 2   # the first cell of a seat's cards
_STATE_COL = _CARDS_COL + _CARDS + 1   # and of its state


def _up(notation: str) -> str:
    """A card face up, 5 cells, its suit as a glyph: ``[A♠ ]``, ``[10♦]`` (``[A+ ]``,
    ``[10#]`` in the classic look)."""
    return f"[{card(notation):^3}]"


def _down(notation: str | None) -> str:
    """A card face down, 5 cells: your own ``(A♠ )``, another's ``(?? )``."""
    return f"({card(notation) if notation else '??':^3})"


#: A seat's cards in groups (the first two down, the up cards, the seventh down): each
#: card drawn (5 cells) with its pen.
_Cards = list[list[tuple[str, Pen]]]


def _seat_cards(s: StudSeat, own: Sequence[str] | None) -> _Cards:
    """A seat's cards in the order dealt (two down, the up cards, the seventh down):
    every card face up once shown; ``own``: the viewer's own down cards (their seat),
    else the down cards are counted, not named. Face up and your own in
    :attr:`Pen.CARD`, counted in :attr:`Pen.CARD_BACK`."""
    if s.shown:
        cards = list(s.shown)
        return [[(_up(c), Pen.CARD) for c in group]
                for group in (cards[:2], s.up, cards[2 + len(s.up):])]
    down: list[str | None] = list(own) if own else [None] * s.down
    back = Pen.CARD if own else Pen.CARD_BACK
    return [[(_down(c), back) for c in down[:2]], [(_up(c), Pen.CARD) for c in s.up],
            [(_down(c), back) for c in down[2:]]]


def _cards_text(groups: _Cards) -> str:
    """The cards of :func:`_seat_cards` as drawn, the groups a blank apart."""
    return " ".join("".join(text for text, _pen in group) for group in groups if group)


def _card_spans(span: Span, row: int, groups: _Cards) -> None:
    """Each card's pen where :func:`_cards_text` draws it on ``row``."""
    col = _CARDS_COL
    for group in groups:
        if group:
            for _text, pen in group:
                span(row, col, _CARD_WIDTH, pen)
                col += _CARD_WIDTH
            col += 1


def _running(board: StudTable | None) -> bool:
    return board is not None and board.game_id is not None


def _completed(snap: TableSnapshot, board: StudTable) -> bool:
    """Third street's bet is complete: some seat has put in the small bet (a completion,
    or the bring-in player's own completion)."""
    return any(s.bet >= board.small_bet for s in snap.seats_as(StudSeat))


def _seat_row(snap: TableSnapshot, board: StudTable | None, s: StudSeat | None, n: int,
              handle: str, cards: Sequence[str], t: Translator, span: Span) -> str:
    """Row of seat ``n`` (0-6, row ``n + 1``): number, mark, handle, stack, bet this
    round, cards, state. The player in turn's number to bet and state highlighted, your
    own seat's in your colour; a seat out of the hand (folded, sitting out, away) dark,
    its cards too; else each card in its pen (:func:`_seat_cards`)."""
    if s is None:
        return _row(f" {n + 1}      " + t.gettext("(free)"))
    mine = s.handle.lower() == handle.lower()
    third = board is not None and board.street is Street.THIRD
    mark = (t.pgettext(*_BRINGER) if s.bring_in and third
            else t.pgettext(*_DEALER) if s.dealer else "")
    name = clean_text(s.handle, 10) + ("*" if mine else "")
    how = ("turn" if s.current else "all_in" if s.all_in else
           "" if s.shown else "out" if s.out else
           "fold" if s.dealt and not s.in_hand else
           "next" if _running(board) and not s.dealt else "")     # a code of _STATES
    words = [t.pgettext(*_STATES[how])] if how else []
    away = s.handle in snap.held
    if away:
        words.append(t.pgettext(*_STATES["away"]))
    bet = f"{t.number(s.bet):>5}" if s.bet else "     "
    own = cards if mine and cards and len(cards) == s.down else None
    groups = _seat_cards(s, own)
    row = n + 1
    if s.current:
        span(row, 1, _PLATE, Pen.TURN)
        span(row, _STATE_COL, WIDTH - 1 - _STATE_COL, Pen.TURN)
    elif how in ("fold", "out") or away:
        span(row, 1, WIDTH - 2, Pen.FOLDED)
    elif mine:
        span(row, 1, _PLATE, Pen.SELF)
    if s.current or not (how in ("fold", "out") or away):
        _card_spans(span, row, groups)
    return _row(f" {n + 1} {fit(clean_text(mark, 2), 2)} {fit(name, 11)}"
                f"{t.number(s.stack):>7} {bet} {fit(_cards_text(groups), _CARDS)} "
                + " ".join(words))


def _pot_rule(board: StudTable | None, t: Translator, span: Span) -> str:
    """Row 8: the divider over the command area, with the pot (and its parts, the main
    pot first, when there are side pots) while a hand runs."""
    right = "┬" + "─" * _RIGHT + "┤"
    if board is None or board.pot_total is None:
        return "├" + "─" * _LEFT + right
    pot = t.gettext("POT {pot}").format(pot=t.number(board.pot_total))
    if len(board.pots) > 1:
        pot += " (" + " + ".join(t.number(p) for p in board.pots) + ")"
    head = clean_text("─ " + pot + " ", _LEFT)
    span(_POT_ROW, 3, min(display_width(pot), _LEFT - 2), Pen.POT)
    return "├" + head + "─" * (_LEFT - display_width(head)) + right


def _commands(snap: TableSnapshot, board: StudTable | None, handle: str, t: Translator,
              watching: bool, may_sit: bool, prompt: str | None, refusal: bool,
              span: Span, exit_key: str = LEAVE_KEY) -> list[str]:
    """Four rows: the keys of exactly the legal choices now, what the viewer waits for,
    then the prompt (a question, or a ``refusal`` in red)."""
    n = t.number
    actions = () if watching else snap.actions.get(handle, ())
    me = None if watching else snap.seat_as(StudSeat, handle)
    lines: list[str] = []
    if act.CheckCall in actions and board is not None:
        turn = []
        if act.Pass in actions:
            turn.append(t.gettext("[F] fold"))
        turn.append(t.gettext("[C] bring-in {amount}").format(amount=n(board.to_call))
                    if board.bring_in_due else
                    t.gettext("[C] call {amount}").format(amount=n(board.to_call))
                    if board.to_call else t.gettext("[C] check"))
        if act.BetRaise in actions and board.raise_to is not None:
            amount = n(board.raise_to)
            turn.append(t.gettext("[R] complete to {amount}").format(amount=amount)
                        if board.street is Street.THIRD and not _completed(snap, board)
                        else t.gettext("[R] bet {amount}").format(amount=amount)
                        if not any(s.bet for s in snap.seats_as(StudSeat))
                        else t.gettext("[R] raise to {amount}").format(amount=amount))
        lines += command_lines(turn)
    broke = me is not None and me.out and not me.stack and not me.dealt
    if watching:
        lines.append(t.gettext("You are watching this table."))
        if may_sit:
            lines.append(t.gettext("[J] take a free seat"))
    elif me is not None and broke:                     # no chips: only [X] helps
        lines += wrap(t.gettext("You sit out with no chips: [X] to leave, then buy in "
                                "again."), _TEXT)
    elif me is not None and me.out:
        lines.append(t.gettext("[I] come back in"))
    elif me is not None:
        if _running(board) and not me.dealt:
            lines += wrap(t.gettext("You are dealt in from the next hand."), _TEXT)
        if act.SitOut in actions:
            lines.append(t.gettext("[I] sit out from the next hand"))
    return command_rows(t, lines, prompt, refusal, span, _POT_ROW + 1, exit_key)


def _info(snap: TableSnapshot, board: StudTable | None, t: Translator,
          clock: str | None, clock_in: Pen) -> list[InfoLine]:
    """Four lines: whose turn, the clock (its value in ``clock_in``), the street; on third
    street the bring-in (due, posted by whom, or completed), later the street's bet; with
    no hand, the stakes."""
    n = t.number
    rules: StudRules | None = snap.rules if isinstance(snap.rules, StudRules) else None
    if board is None or board.game_id is None:
        ante, bring_in = (board.ante, board.bring_in) if board is not None else (
            (rules.ante, rules.bring_in) if rules is not None else (0, 0))
        return [(None, t.gettext("No hand") if len(snap.seats) >= 2
                 else t.gettext("No hand: waiting for players"), Pen.DEFAULT),
                (None, "", Pen.DEFAULT), (_ANTE, n(ante), Pen.VALUE),
                (_BRING_IN, n(bring_in), Pen.VALUE)]
    lines: list[InfoLine] = [(_TURN, clean_text(snap.current or "", 14), Pen.VALUE),
                             (_CLOCK, clock or "", clock_in),
                             (_STREET, street_name(board.street.value, t), Pen.VALUE)]
    if board.street is not Street.THIRD:
        size = board.small_bet if board.street is Street.FOURTH else board.big_bet
        return lines + [(_BETS, n(size), Pen.VALUE)]
    if board.bring_in_due:
        state = t.gettext("{amount}, due").format(amount=n(board.to_call))
    elif _completed(snap, board):
        state = t.gettext("completed to {amount}").format(amount=n(board.small_bet))
    else:
        by = next((s for s in snap.seats_as(StudSeat) if s.bring_in), None)
        state = f"{clean_text(by.handle, 10)} {n(by.bet or board.bring_in)}" if by else ""
    return lines + [(_BRING_IN, state, Pen.VALUE)]


def render_table(snap: TableSnapshot, cards: Sequence[str], t: Translator, *, handle: str,
                 table: str, watching: bool = False, clock: str | None = None,
                 prompt: str | None = None, may_sit: bool = False,
                 seconds: float | None = None, refusal: bool = False,
                 span: Span = no_span, exit_key: str = LEAVE_KEY) -> list[str]:
    """Rows 0-12 (:data:`TABLE_ROWS`, each 80 cells) of the stud screen of ``handle`` at
    the table named ``table``: the title with the hand and street, seats 1-7, the pot
    divider, the command area beside the game information. ``snap``: the table's
    snapshot (``snap.view`` a :class:`~bbspoker.rules.stud.game.StudTable`,
    ``snap.rules`` the :class:`~bbspoker.rules.stud.game.StudRules`); ``cards``: the
    viewer's own down cards (GV notation, in the order dealt; from ``PrivateCards``),
    drawn on their seat only; ``t``: the viewer's language; ``watching``: a spectator's
    screen (no keys but [J], no own cards); ``clock``: the count-down text
    (``"0:42"``) and ``seconds`` the seconds it has left (its colour:
    :func:`~bbspoker.door.look.clock_pen`); ``prompt``: a question, or a ``refusal``,
    under the keys; ``may_sit``: a spectator may take a seat ([J]).

    The rows are drawn in canonical glyphs (box drawing, suit symbols: the classic look
    shows them as ``+ - |`` and GV suits); ``span(row, col, width, pen)`` is told the
    colour of what they show (:meth:`~bbspoker.door.screens.rows.RowScreen.span`): the
    title, each card (face up, or its back), the seat in turn, yours, those out of the
    hand, the pot, the game information's labels and values, the prompt. Pure: the same
    arguments give the same rows and spans."""
    board: StudTable | None = snap.view if isinstance(snap.view, StudTable) else None
    rules: StudRules | None = snap.rules if isinstance(snap.rules, StudRules) else None
    seats_n = rules.seats if rules is not None else _SEATS
    small = board.small_bet if board is not None else rules.small_bet if rules else 0
    num = t.number
    state = (t.gettext("Hand {hand}, {street}").format(
        hand=num(board.hand or board.game_id or 0), street=street_name(board.street.value, t))
        if board is not None and board.game_id is not None
        else t.gettext("{n} of {seats} seated").format(n=len(snap.seats), seats=seats_n))
    where = " " + state + " ─┐"
    name = t.gettext("Stud {small}/{big}: {table}").format(
        small=num(small), big=num(2 * small), table=clean_text(table, 20))
    title = clean_text("┌─ " + name + " ", WIDTH - display_width(where))
    rows = [title + "─" * (WIDTH - display_width(title) - display_width(where)) + where]
    span(0, 3, min(display_width(name), display_width(title) - 4), Pen.TITLE)
    span(0, WIDTH - display_width(where) + 1, display_width(state), Pen.VALUE)
    seats = {s.seat: s for s in snap.seats_as(StudSeat)}
    own = () if watching else tuple(str(c) for c in cards)
    for n in range(_SEATS):
        rows.append(_seat_row(snap, board, seats.get(n), n, handle, own, t, span)
                    if n < seats_n else _row(""))
    rows.append(_pot_rule(board, t, span))
    commands = _commands(snap, board, handle, t, watching, may_sit, prompt, refusal, span,
                         exit_key)
    info = info_rows(t, _info(snap, board, t, clock, clock_pen(seconds)), span, _POT_ROW + 1)
    for left, right in zip(commands, info):
        rows.append(_halves(left, right))
    return rows


class StudScreen(RowScreen):
    """One player's (or spectator's, ``watching``) seven-card stud screen; see the module
    docstring. The loop is the row screens'; the drawing is :func:`render_table`'s and
    the game keys are stud's."""

    # ----------------------------------------------------------------- keys

    def _game_key(self, char: str) -> None:
        snap = self.snapshot
        actions = snap.actions.get(self.handle, ())
        board = snap.view if isinstance(snap.view, StudTable) else None
        if char in "fp" and act.Pass in actions:
            self._command(act.Pass())
        elif char in "fp" and act.CheckCall in actions:
            # In turn and no fold: the bring-in is due, or checking is free.
            self.error = self.kind.refusal(
                RuleError("bring_in_due", amount=board.to_call)
                if board is not None and board.bring_in_due else RuleError("check_free"),
                self.t)
        elif char == "c" and act.CheckCall in actions:
            self._command(act.CheckCall())
        elif char == "r" and act.BetRaise in actions:
            self._command(act.BetRaise())
        elif char == "i" and act.SitOut in actions:
            me = snap.seat_as(StudSeat, self.handle)
            self._command(act.SitOut(out=not (me is not None and me.out)))

    def _between_games(self) -> bool:
        """Always: one who leaves folds the hand (posting the bring-in first when it is
        due; an all-in plays it out) and the stack is cashed out when it ends, so a caller
        whose time is up leaves at once."""
        return True

    def _may_sit(self) -> bool:
        """A spectator may take a free seat at any time (dealt in from the next hand), or
        ask a computer player for theirs (it stands up between hands)."""
        snap = self.snapshot
        seats = snap.rules.seats if isinstance(snap.rules, StudRules) else _SEATS
        return not self._waits() and (len(snap.seats) < seats or bool(snap.bots))

    def _clock_deadline(self) -> float | None:
        """Everyone sees the clock of the turn in play."""
        return self.snapshot.deadline if self.snapshot.current else None

    def _prompt(self) -> str | None:
        if self.mode == "exit":
            me = self.snapshot.seat_as(StudSeat, self.handle)
            if me is not None and me.in_hand and not self.watching:
                return self.t.gettext("Leave? You fold this hand. (y/n)")
            return self.t.gettext("Really leave the table? (y/n)")
        return self.error

    # ----------------------------------------------------------------- drawing

    def rows(self) -> tuple[list[str], tuple[int, int]]:
        """The 24 rows of this screen now, and where the cursor goes (the input line)."""
        snap = self.snapshot
        t = self.t
        rows = render_table(snap, tuple(str(c) for c in self.cards), t, handle=self.handle,
                            table=self.entry.name, watching=self.watching,
                            clock=self._clock_text(), seconds=self._remaining(),
                            prompt=self._prompt(), refusal=self.mode != "exit",
                            may_sit=self.watching and self._may_sit(), span=self.span,
                            exit_key=self.exit_key)
        me = snap.seat_as(StudSeat, self.handle)
        stack = (t.gettext("[stack {n}]").format(n=t.number(me.stack)) + " "
                 if me is not None and not self.watching else "")
        return bottom_rows(self, rows, stack)


# ------------------------------------------------------------------- the lobby's words

def _table_rules(entry: TableRef) -> StudRules:
    """The numbers of ``entry``'s game (its snapshot's rules)."""
    rules = entry.service.snapshot.rules
    assert isinstance(rules, StudRules)
    return rules


def intro(t: Translator, entry: TableRef, app: DoorContext, handle: str) -> list[str]:
    """The first lines of a stud table's entry: the game and its bets, the ante, the
    bring-in and the buy-in, the ANSI note; in ``t``'s language."""
    rules = _table_rules(entry)
    n = t.number
    return ["", t.gettext("{table} -- fixed-limit seven-card stud {small}/{big} for CUBES, "
                          "2-{seats} players").format(
                table=entry.name, small=n(rules.small_bet), big=n(rules.big_bet),
                seats=rules.seats),
            *textwrap.wrap(t.gettext("Ante {ante}; the lowest up card brings it in for "
                                     "{bring_in} or completes to {small}; one bet and three "
                                     "raises a street. You bring {low}-{high} CUBES to the "
                                     "table.").format(
                ante=n(rules.ante), bring_in=n(rules.bring_in), small=n(rules.small_bet),
                low=n(rules.low), high=n(rules.high)), WIDTH - 1), "",
            t.gettext("Note: this game uses ANSI terminal escape sequences."), ""]


def stakes(rules: Any, t: Translator) -> str:
    """The table list's stakes (``rules``: anything with the ``small_bet`` in CUBES):
    ``10/20 limit``."""
    n = t.number
    return t.gettext("{small}/{big} limit").format(small=n(rules.small_bet),
                                                   big=n(2 * rules.small_bet))


def still_seated(t: Translator, snap: TableSnapshot, handle: str) -> str | None:
    """One who left during a hand they are still in keeps the seat and stack until it
    ends: there is no seat to join yet, only the hand to watch; ``None`` when not seated."""
    me = snap.seat_as(StudSeat, handle)
    if me is None:
        return None
    return t.gettext("You are still seated here until the hand in play ends (stack {stack} "
                     "CUBES); then you may sit down again.").format(stack=t.number(me.stack))


HELP = N_("""\
Stud in short (fixed-limit seven-card stud, 52 cards, 2 to 7 players)

 - Sitting down you bring CUBES to the table (the buy-in): only that stack
   plays, and leaving the table cashes it out.
 - Everyone posts the ante and gets two cards face down and one face up
   (third street). The lowest up card must open: [C] brings it in for the
   bring-in, [R] completes to the small bet; it may not fold.
 - Fourth, fifth and sixth street: one more card face up each; seventh street
   one face down. From fourth street the best hand showing acts first.
 - The small bet counts on third and fourth street, the big bet (twice as
   much) from fifth on; one bet and three raises a street at most.
   [F] folds, [C] checks or calls, [R] bets or raises.
 - Showdown: the best five of your seven cards win; equal hands split the pot.
 - When your time runs out, the clock posts the bring-in, checks or folds.
 - [I] sits out and comes back, [.] chats with the table, [X] leaves it.
""")


async def _buy_in(session: Player, app: DoorContext, entry: TableRef) -> act.Sit | None:
    """The buy-in question (:func:`~bbspoker.door.screens.base.ask_buy_in`) with this
    table's range."""
    config: StudConfig = entry.spec.config
    return await ask_buy_in(session, app, *config.buy_in_range())


#: Fixed-limit seven-card stud as the door shows it.
KIND = ScreenKind(
    name="stud", screen=StudScreen, title=TITLE, phrase=PHRASE, help=HELP, intro=intro,
    stakes=stakes, describe_event=stud_text.describe_event,
    describe_operation=stud_text.describe_operation,
    refusals=stud_text.REFUSALS,
    seated=N_("At the table ({taken} of {seats} seats): {names}"),
    nobody=N_("Nobody is at this table right now."),
    bots_stand_up=N_("All {seats} seats are taken; a computer player stands up for you "
                     "between hands."),
    still_seated=still_seated, buy_in=_buy_in)
StudScreen.kind = KIND
