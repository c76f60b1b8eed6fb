"""The Schiebe-Poker table as one player or spectator sees it at 80x24.

Each player sits at their own terminal and sees only their own hidden cards (the text's
hotseat "nächste*r Spielende*r" screen is not needed: nobody else looks at this screen).
Layout (rows 0-23)::

    0  ┌─ Schiebe-Poker: <table> ────────────────────────── Round 1 of 3 ─┐
    1  │ MIDDLE    [ 7♥ ] [ Q♠ ] [ 3♣ ]    Draw pile 29   Discard  4, top [ 5♦ ] │
    2  │             1      2      3       (middle row positions)             │
    3  │ YOU       hidden [ A♠ ] [ Q♠ ]   open [ Q♥ ] [ 2♥ ] [ A♣ ]           │
    4  │                                         1      2      3    (your ...) │
    5  │ bob       hidden [ ?? ] [ ?? ]   open [ 6♦ ] [ 4♦ ] [ 8♦ ] <- in turn │
    6-7│ (the other opponents, each open card in its order)                   │
    8  ├────────────────────────────────────────────┬──────────────────────┤
    9-12 commands: exactly the legal keys now     │ turn, clock, action, pot
   13  ├─ alice [990 CUBES] ────────────────────────┴──────────────────────┤
   14-22 the log: every action as it happens, and the chat
   23  > chat input

Drawn in canonical glyphs (:mod:`bbspoker.door.look`): box drawing and the suit symbols
(GV ``+ * # -`` as ``♠ ♥ ♦ ♣``), which the classic look shows as the GV mock-up's ``+ - |``
and ``+ * # -``, byte for byte. While drawing, the screen names the colour of what it
draws (:meth:`~bbspoker.door.screens.rows.RowScreen.span`): the title, face-up cards and
face-down ones, your own row, the player in turn, players out of the game or away, the
labels and values of the game information, the pot, the clock (yellow in its last 30 s,
red in its last 10 s), the question or refusal in the command area and the ranking's
first place.

:class:`SchiebeScreen` takes the game-screen loop of
:class:`~bbspoker.door.screens.base.TableScreen` (keys taken in the turn they arrive,
the table's bus painted inside its step, the seat held when the connection drops, chat,
[X], a spectator's [J]) and gives what is drawn (rows, :mod:`bbspoker.door.screens.rows`)
and what the game keys do: ``<`` ``>``
push, ``1``-``3`` then ``1``-``3`` swap one open card with a middle card, ``A`` swap all
three, ``N`` no swap; ``S`` proposes the rounds, ``Y``/``N`` answer the proposal. The
screen is drawn as 24 rows of text and only the rows that changed are sent. :data:`KIND`
is the kind as the door shows it (entry, stakes, help, its events' words in
:mod:`bbspoker.door.screens.schiebe_text`).
"""

from __future__ import annotations

import re
import string
import textwrap
from typing import TYPE_CHECKING, Any, cast

from bbspoker.door import i18n
from bbspoker.door.i18n import N_, NP_
from bbspoker.door.keys import Edit, Key, KeyKind, LineEditor
from bbspoker.door.look import SUIT_GLYPHS, Pen, clock_pen
from bbspoker.door.screens import schiebe_text
from bbspoker.door.screens.base import ScreenKind
from bbspoker.door.screens.rows import (LABEL_WIDTH, LEFT as _LEFT, RIGHT as _RIGHT,
                                        TEXT as _TEXT, WIDTH, RowScreen, bottom_rows,
                                        command_area, command_lines, halves as _halves,
                                        labelled, row as _row)
from bbspoker.door.screens.schiebe_text import OWN_POSITIONS, category_name
from bbspoker.rules.schiebe.actions import LEFT, RIGHT, NoSwap, Propose, Push, Swap, SwapAll, Vote
from bbspoker.rules.schiebe.game import Board, Phase
from bbspoker.table.service import TableSnapshot
from bbspoker.text import clean_text, display_width, fit

if TYPE_CHECKING:
    from bbspoker.door.context import DoorContext
    from bbspoker.door.terminal import Player
    from bbspoker.table.registry import TableRef

__all__ = ["KIND", "SchiebeScreen", "HELP"]


def _glyphs(card: str) -> str:
    """A card of GV notation (``"7*"``, ``"10+"``) with its suit as the screen draws it:
    ``"7♥"``, ``"10♠"`` (:data:`~bbspoker.door.look.SUIT_GLYPHS`; the classic look shows
    the GV sign again)."""
    return card[:-1] + SUIT_GLYPHS.get(card[-1], card[-1])


def _card(card: str | None) -> str:
    """A card as the screen draws it, 6 cells: ``[ 7♥ ]``, ``[10♠ ]``, a hidden one
    ``[ ?? ]``."""
    if card is None:
        return "[ ?? ]"
    return f"[{_glyphs(card):^4}]"


def _cards(cards: tuple[str, ...] | list[str]) -> str:
    return " ".join(_card(c) for c in cards)


#: A card on a row as :func:`_card` draws it, face up or face down (``[ ?? ]``).
_SUITS = "".join(SUIT_GLYPHS.values())
_CARD = re.compile(rf"\[(?: \?\? | [2-9JQKA][{_SUITS}] |10[{_SUITS}] )\]")


def _placed(template: str, **values: str) -> tuple[str, dict[str, tuple[int, int]]]:
    """``template.format(**values)`` (simple ``{name}`` fields and format specs) and
    where each field landed in it: name -> (first cell, width in cells)."""
    out, where = "", {}
    for literal, field, spec, _ in string.Formatter().parse(template):
        out += literal
        if field is not None:
            text = format(values[field], spec or "")
            where[field] = (display_width(out), display_width(text))
            out += text
    return out, where


#: The first cell of the game information's text (right of the divider and a blank),
#: and the most cells of a labelled line's value.
_INFO = _LEFT + 3
_VALUE = _RIGHT - 1 - LABEL_WIDTH - 1

# The labels of the game information.
_TURN, _CLOCK = NP_("game info", "Turn"), NP_("game info", "Clock")
_ACTION, _POT = NP_("game info", "Action"), NP_("game info", "Pot")
_ANTE = NP_("game info", "Ante")


class SchiebeScreen(RowScreen):
    """One player's (or spectator's, ``watching``) Schiebe-Poker screen; see the module
    docstring. The loop is :class:`~bbspoker.door.screens.base.TableScreen`'s; the drawing
    and the game keys are Schiebe-Poker's."""

    def __init__(self, session: Player, app: DoorContext, entry: TableRef,
                 watching: bool = False, returning: bool = False,
                 want_seat: bool = False) -> None:
        super().__init__(session, app, entry, watching, returning, want_seat)
        self.swap_from: int | None = None   # own open card chosen for a swap (0-2)

    # ----------------------------------------------------------------- keys

    def _on_key(self, key: Key) -> None:
        if self.mode == "rounds":
            self._rounds_key(key)
            return
        super()._on_key(key)

    def _rounds_key(self, key: Key) -> None:
        """The proposal prompt: 2-7 then Enter (Enter alone: the table's rounds), Esc."""
        assert self.editor is not None
        if key.kind is KeyKind.CHAR and key.char not in "234567":
            self.error = self.t.gettext("Type a number of rounds from 2 to 7.")
            return
        result = self.editor.press(key)
        if result is Edit.CANCELLED:
            self.mode, self.editor = None, None
        elif result is Edit.DONE:
            text, self.mode, self.editor = self.editor.text, None, None
            self._command(Propose(int(text) if text else self.rules.rounds))

    def _game_key(self, char: str) -> None:
        actions = self.snapshot.actions.get(self.handle, ())
        if Propose in actions and char == "s":
            self.mode, self.editor = "rounds", LineEditor(1)
        elif Vote in actions and self.t.answer(char) is not None:   # [Y]/[J]/[O], [N]
            self._command(Vote(bool(self.t.answer(char))))
        elif Push not in actions:
            return
        elif self.swap_from is not None:
            own, self.swap_from = self.swap_from, None
            if char in ("1", "2", "3"):
                self._command(Swap(own, int(char) - 1))
        elif char in ("<", ","):
            self._command(Push(LEFT))
        elif char in (">",):
            self._command(Push(RIGHT))
        elif char in ("1", "2", "3"):
            self.swap_from = int(char) - 1
        elif char == "a":
            self._command(SwapAll())
        elif char == "n":
            self._command(NoSwap())

    def _on_snapshot(self, snap: TableSnapshot) -> None:
        """Forget a chosen open card once pushing is over, and the rounds prompt once
        proposing is."""
        if Push not in snap.actions.get(self.handle, ()):
            self.swap_from = None
        if self.mode == "rounds" and Propose not in snap.actions.get(self.handle, ()):
            self.mode, self.editor = None, None

    def _between_games(self) -> bool:
        """No Schiebe-Poker game is being played (one that leaves now loses nothing)."""
        return self.snapshot.view_as(Board).phase is not Phase.PLAYING

    def _may_sit(self) -> bool:
        """A spectator may take a free seat when no game is being played."""
        snap = self.snapshot
        return (not self._waits() and snap.view_as(Board).phase is not Phase.PLAYING
                and len(snap.seats) < self.rules.seats)

    def _clock_deadline(self) -> float | None:
        """Everyone at the table sees the clock of the turn (or the vote)."""
        return self.snapshot.deadline

    # ----------------------------------------------------------------- drawing

    def rows(self) -> tuple[list[str], tuple[int, int]]:
        """The 24 rows of this screen now, and where the cursor goes (the input line);
        with the colours of what they show (:meth:`span`)."""
        snap = self.snapshot
        board = snap.view_as(Board)
        playing = board.phase is Phase.PLAYING
        t = self.t
        name = t.gettext("Schiebe-Poker: {table}").format(table=clean_text(self.entry.name, 20))
        title = "┌─ " + name + " "
        round_, rounds = board.round, board.rounds      # both set while a game is played
        state = (t.gettext("Round {round} of {rounds}").format(
            round=t.number(round_), rounds=t.number(rounds))
            if playing and round_ is not None and rounds is not None else
            t.gettext("{n} of {seats} seated").format(n=len(snap.seats),
                                                       seats=self.rules.seats))
        where = " " + state + " ─┐"
        rows = [title + "─" * (WIDTH - display_width(title) - display_width(where)) + where]
        self.span(0, 3, display_width(name), Pen.TITLE)
        self.span(0, WIDTH - display_width(where) + 1, display_width(state), Pen.VALUE)
        rows += self._table_rows(snap, board, playing)
        rows.append("├" + "─" * _LEFT + "┬" + "─" * _RIGHT + "┤")
        commands = self._commands(snap, playing)
        self._span_prompt(len(rows), commands)
        for left, (right, pen, label) in zip(commands, self._info(snap, board, playing)):
            r = len(rows)
            if label:
                self.span(r, _INFO, LABEL_WIDTH, Pen.LABEL)
                self.span(r, _INFO + LABEL_WIDTH + 1,
                          min(display_width(right) - LABEL_WIDTH - 1, _VALUE), pen)
            elif right:
                self.span(r, _INFO, min(display_width(right), _RIGHT - 1), pen)
            rows.append(_halves(left, right))
        return bottom_rows(self, rows, "")

    def _span_prompt(self, first: int, commands: list[str]) -> None:
        """The question, input line or refusal at the end of the command area (``commands``,
        its four rows from row ``first``): a question or input line bright, a refusal red."""
        prompt = self._prompt()
        if not prompt:
            return
        tail = textwrap.wrap(prompt, _TEXT)[:3]
        pen = Pen.PROMPT if self.mode in ("rounds", "exit") else Pen.ERROR
        for k in range(len(commands) - len(tail), -1, -1):
            if commands[k:k + len(tail)] == tail:
                for i, line in enumerate(tail):
                    self.span(first + k + i, 2, display_width(line), pen)
                return

    def _add(self, rows: list[str], text: str, *spans: tuple[int, int, Pen]) -> None:
        """Append the table row ``text`` (the text inside its borders) to ``rows`` (the
        rows from row 1), with the colours of its cells: ``(cell of text, width, pen)``."""
        self._marks.extend((len(rows) + 1, col + 1, width, pen) for col, width, pen in spans)
        rows.append(_row(text))

    def _table_rows(self, snap: TableSnapshot, board: Board, playing: bool) -> list[str]:
        """Rows 1-7: the middle row and the piles, your cards, the opponents' open cards
        (each in its order, never sorted); between games the proposal or the last ranking.
        Every card is drawn face up or face down (:data:`_CARD`), then each row's own
        colours over them (a player out of the game or away is dark, cards and all)."""
        rows: list[str] = []
        self._marks: list[tuple[int, int, int, Pen]] = []
        add = self._add
        t = self.t
        me = None if self.watching else snap.seat_of(self.handle)
        opens = dict(board.open)
        if playing:
            top = _card(board.top_discard) if board.top_discard else t.gettext("(empty)")
            # TRANSLATORS: the piles beside the middle row: at most 36 cells with 2-digit
            # counts and the top card ([ 5# ], 6 cells).
            piles, at = _placed(t.gettext("Draw pile {draw}   Discard {discard}, top {top}"),
                                draw=f"{board.draw_count:>2}",
                                discard=f"{board.discard_count:>2}", top=top)
            middle = self._label(t.gettext("MIDDLE"))
            head = " " + middle + _cards(board.middle) + "    "
            add(rows, head + piles, (1, display_width(middle.rstrip()), Pen.LABEL),
                *((display_width(head) + col, width, Pen.VALUE)
                  for field, (col, width) in at.items() if field != "top"))
            add(rows, " " * 11 + "".join(f"  {n}    " for n in "123") + "   "
                + t.gettext("(middle row positions)"))
            if me is not None and me.active:
                # Schiebe-Poker's cards are notation
                hidden = cast(tuple[str, ...], tuple(self.cards)) if self.cards else ()
                # TRANSLATORS: "hidden" and "open" before the two hidden and the three
                # open cards: together at most 16 cells.
                cards = t.gettext("hidden {hidden}   open {open}").format(
                    hidden=_cards(hidden), open=_cards(opens.get(me.handle, ())))
                you = self._label(t.gettext("YOU"))
                spans = [(1, display_width(you.rstrip()), Pen.SELF)]
                turn = ""
                if me.handle == snap.current:
                    turn = "   " + t.gettext("<- your turn")
                    spans.append((4 + display_width(you + cards), display_width(turn) - 3,
                                  Pen.TURN))
                add(rows, " " + you + cards + turn, *spans)
                at_ = 11 + display_width(cards) - 20
                add(rows, " " * at_ + "".join(f"  {n}    " for n in "123")
                    + t.gettext("(your open cards)"))
            else:
                add(rows, " " + (t.gettext("You are watching this game.") if self.watching
                                 else t.gettext("You are not in this game: you may "
                                                "play the next one.")))
                add(rows, "")
        else:
            self._rows_between_games(snap, board, rows)
        for seat in snap.seats[:4]:
            if seat is me or len(rows) >= 7:
                continue
            text, spans = self._opponent(snap, seat, board, opens)
            add(rows, text, *spans)
        rows += [_row("")] * (7 - len(rows))
        for r, text in enumerate(rows[:7], 1):
            for m in _CARD.finditer(text):
                self.span(r, display_width(text[:m.start()]), 6,
                          Pen.CARD_BACK if "?" in m.group() else Pen.CARD)
        for r, col, width, pen in self._marks:
            if r <= 7:
                self.span(r, col, width, pen)
        return rows[:7]

    @staticmethod
    def _label(word: str) -> str:
        """A row's label (``MIDDLE``, ``YOU``, a handle) in the 10 cells before the cards."""
        return fit(word, 9) + " "

    def _opponent(self, snap: TableSnapshot, seat: Any, board: Board,
                  opens: dict[str, tuple[str, ...]]
                  ) -> tuple[str, list[tuple[int, int, Pen]]]:
        """An opponent's row: their open cards in their order, whether in turn or away;
        and its colours as :meth:`_add` takes them (out of this game or away: dark; in
        turn: the name and the arrow highlighted)."""
        t = self.t
        name = self._label(clean_text(seat.handle, 12))
        out = seat.handle in snap.held
        mark = " " + t.gettext("(away)") if out else ""
        turn = ""
        if board.phase is not Phase.PLAYING:
            body = " " + name + t.gettext("seated")
        elif not seat.active:
            body = " " + name + t.gettext("not in this game")
            out = True
        else:
            turn = "   " + t.gettext("<- in turn") if seat.handle == snap.current else ""
            body = " " + name + t.gettext("hidden {hidden}   open {open}").format(
                hidden="[ ?? ] [ ?? ]", open=_cards(opens.get(seat.handle, ())))
        text = body + turn + mark
        spans: list[tuple[int, int, Pen]] = []
        if out:
            spans.append((1, display_width(text) - 1, Pen.FOLDED))
        if turn:
            spans += [(1, display_width(name.rstrip()), Pen.TURN),
                      (display_width(body) + 3, display_width(turn) - 3, Pen.TURN)]
        return text, spans

    def _rows_between_games(self, snap: TableSnapshot, board: Board, rows: list[str]) -> None:
        """Up to five rows between games, added to ``rows``: the proposal being voted on,
        or the last ranking with every hand (the first place in the winner's colour), or
        how to begin."""
        t = self.t
        add = self._add
        if board.proposal is not None:
            waiting = [s.handle for s in snap.seats if s.handle not in board.voted
                       and s.handle != board.master]
            add(rows, " " + t.gettext("{h} proposes {rounds} rounds.").format(
                h=board.master, rounds=board.proposal))
            add(rows, " " + t.gettext("Agreed: {names}.").format(names=", ".join(board.voted)))
            add(rows, " " + (t.gettext("Waiting for: {names}.").format(
                names=", ".join(waiting)) if waiting else t.gettext("Waiting for nobody.")))
            add(rows, "")
            return
        if board.ranking:
            heading = t.gettext("FINAL RANKING of the last game (hidden | open cards)")
            add(rows, " " + heading, (1, display_width(heading), Pen.TITLE))
            for place, handle, value, cards in board.ranking[:4]:
                head = f" {place}. {fit(clean_text(handle, 12), 12)} "
                hidden = f"{' '.join(_glyphs(c) for c in cards[:2]):<8}"
                shown = f" {' '.join(_glyphs(c) for c in cards[2:]):<12} "
                category = category_name(value, t)
                bar = display_width(head + hidden)          # the bar between the two
                if place == 1:
                    spans = [(1, bar - 1, Pen.WINNER),
                             (bar + 1, display_width(shown + category), Pen.WINNER)]
                else:
                    spans = [(display_width(head), display_width(hidden.rstrip()), Pen.CARD),
                             (bar + 2, display_width(shown.strip()), Pen.CARD)]
                add(rows, head + hidden + "│" + shown + category, *spans)
            return
        head = (t.gettext("No game yet.") if len(snap.seats) >= 2
                else t.gettext("No game yet. Waiting for a second player."))
        proposer = (t.gettext("{h} proposes the number of rounds (2-7); everyone else "
                              "agrees.").format(h=board.master) if board.master
                    else t.gettext("The first to sit proposes the number of rounds (2-7); "
                                   "everyone else agrees."))
        for text in (" " + head, " " + proposer, "", ""):
            add(rows, text)

    def _commands(self, snap: TableSnapshot, playing: bool) -> list[str]:
        """Four rows: the keys of exactly the legal choices now, then the prompt."""
        t = self.t
        actions = () if self.watching else snap.actions.get(self.handle, ())
        lines: list[str] = []
        if Push in actions:
            if self.swap_from is not None:
                lines += textwrap.wrap(t.gettext(
                    "Swap your {own} open card with the middle row's card [1]-[3]? (Esc: "
                    "back)").format(own=t.pgettext(*OWN_POSITIONS[self.swap_from])),
                    _TEXT)
            else:
                lines += command_lines([t.gettext("[<] push left"), t.gettext("[>] push right")])
                lines += [t.gettext("[1]-[3] then [1]-[3]: swap one with middle")]
                lines += command_lines([t.gettext("[A] swap all three"),
                                        t.gettext("[N] no swap")])
        elif Vote in actions:
            board = snap.view_as(Board)
            lines += command_lines([t.gettext("[Y] agree to {rounds} rounds").format(
                rounds=board.proposal), t.gettext("[N] refuse")])
        elif Propose in actions:
            lines.append(t.gettext("[S] propose the rounds (2-7, {rounds})").format(
                rounds=self.rules.rounds))
        elif self.watching and self._may_sit():
            lines.append(t.gettext("[J] take a free seat"))
        return command_area(t, lines, self._prompt())

    def _prompt(self) -> str | None:
        t = self.t
        if self.mode == "rounds" and self.editor is not None:
            return t.gettext("Rounds (2-7, Enter: {rounds}): ").format(
                rounds=self.rules.rounds) + f"{self.editor.text}_"
        if self.mode == "exit":
            if self.snapshot.view_as(Board).phase is Phase.PLAYING and not self.watching:
                return t.gettext("Leave? You are out of the game. (y/n)")
            return t.gettext("Really leave the table? (y/n)")
        return self.error

    def _info(self, snap: TableSnapshot, board: Board, playing: bool
              ) -> list[tuple[str, Pen, bool]]:
        """Four rows: whose turn, the clock, the action of the turn, the pot; each with
        the pen of its value and whether it is a labelled line (:func:`labelled`: its
        label is drawn as one) -- the clock's value white, yellow in its last 30 s, red
        in its last 10 s (:func:`~bbspoker.door.look.clock_pen`), the pot's as the pot."""
        clock = self._clock_text() or ""
        clock_line = (labelled(self.t, _CLOCK, clock), clock_pen(self._remaining()), True)
        t = self.t
        if playing:
            done = 3 - board.actions_left
            return [(labelled(t, _TURN, clean_text(snap.current or "", 14)), Pen.VALUE, True),
                    clock_line,
                    (labelled(t, _ACTION, t.gettext("{done} of 2").format(done=done)),
                     Pen.VALUE, True),
                    (labelled(t, _POT, t.gettext("{cubes} CUBES").format(
                        cubes=t.number(board.pot))), Pen.POT, True)]
        blank = ("", Pen.DEFAULT, False)
        if board.proposal is not None:
            return [(t.gettext("Vote on the rounds"), Pen.VALUE, False), clock_line, blank,
                    blank]
        return [(t.gettext("No game"), Pen.VALUE, False), blank,
                (labelled(t, _ANTE, t.gettext("{cubes} CUBES").format(
                    cubes=t.number(self.rules.ante))), Pen.VALUE, True), blank]


def _intro(t: i18n.Translator, entry: TableRef, app: DoorContext, handle: str) -> list[str]:
    """The entry's first lines: the game in a few lines, its stakes, the ANSI notice."""
    rules = entry.spec.config
    n = t.number
    stakes = (t.gettext("Ante {ante} CUBES a player; the first-ranked share the pot.").format(
        ante=n(rules.ante)) if rules.ante else t.gettext("No stakes: played for the ranking."))
    return ["", t.gettext("{table} -- Schiebe-Poker for 2-{seats} players").format(
                table=entry.name, seats=rules.seats), *textwrap.wrap(stakes, WIDTH - 1),
            *textwrap.wrap(t.gettext("Push the middle row left or right, swap your open cards "
                                     "with it; after the agreed rounds the best poker "
                                     "category wins (equal categories tie)."), WIDTH - 1),
            "", t.gettext("Note: this game uses ANSI terminal escape sequences."), ""]


def _stakes(rules: Any, t: i18n.Translator) -> str:
    """The table list's stakes: ``ante 10``, or ``no stakes``."""
    return (t.gettext("ante {ante}").format(ante=t.number(rules.ante)) if rules.ante
            else t.gettext("no stakes"))


HELP = N_("""\
Schiebe-Poker in short (52 cards, 2 to 4 players)

 - Everyone gets two hidden and three open cards; three open cards lie in the
   middle. Only you see your hidden cards.
 - Before a game the game-master proposes 2 to 7 rounds with [S]; everyone else
   agrees with [Y] or refuses with [N].
 - In your turn you make two actions, one after the other: push the middle row
   left [<] or right [>] (a card drops onto the discard pile, a new one comes
   from the draw pile), or swap one of your open cards with a middle card
   ([1]-[3] then [1]-[3]), all three ([A]) or none ([N]).
 - After the last round every hand is shown: only its category counts (High
   card to Royal flush); equal categories share their place.
 - With an ante, the players ranked first share the pot.
 - When your time runs out, the rest of your turn is "no swap".
 - [.] chats with the table, [X] leaves it.
""")

#: The Schiebe-Poker kind as the door shows it (its computer players keep their seats).
KIND = ScreenKind(
    name="schiebe", screen=SchiebeScreen, title=N_("Schiebe-Poker"),
    phrase=N_("Schiebe-Poker"), help=HELP, intro=_intro, stakes=_stakes,
    describe_event=schiebe_text.describe_event,
    describe_operation=schiebe_text.describe_operation,
    refusals=schiebe_text.REFUSALS,
    seated=N_("At the table ({taken} of {seats} seats): {names}"),
    nobody=N_("Nobody is at this table right now."),
    master=lambda snap: snap.view_as(Board).master)
SchiebeScreen.kind = KIND
