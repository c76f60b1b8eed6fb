"""The 80x24 PoKeR game screen of chapter 2, drawn incrementally for one telnet session.

Layout (rows and columns 1-based, as in the mock-up of gvbbs-poker-fr.txt)::

    row  1     +------ top border -------------------+----------------------+
    rows 2-5   | (1) opponents: handle, cards        | (2) Master/Current/  |
               |                                     |     Pot/Round        |
    row  6     +----[N X-messages] (8) --------------+----------------------+
    rows 7-12  | (3) your five cards, 7x6 boxes      | (4) commands, prompt |
    row 13     +- (5) handle [N CUBES] --------------+----------- clock ----+
    rows 14-23 | (6) the last 10 messages, newest marked ->                 |
    row 24     > (7) chat input line                                     <

A session owns one :class:`ScreenRenderer`; the server builds a
:class:`GameView` for it from the table state and sends whatever
:meth:`ScreenRenderer.render` returns.  The renderer lays out again only the
regions whose :class:`GameView` fields changed, remembers what the client's
screen shows (the text of each region's rows) and sends only the cells that
differ, scrolls the message area with the terminal's own scroll region, and
never writes the bottom-right cell (it scrolls some terminals). The bytes that
change a row everyone at the table sees alike (the pot, the messages, the
clock, an opponent's cards, wherever that opponent's row is on each screen)
are made once and reused by every screen that showed the same row before.
All user text goes through :func:`bbspoker.text.clean_text` on its way to a cell.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import attrgetter, ne
from typing import TYPE_CHECKING, Any, NamedTuple

from wcwidth import wrap

from bbspoker.door.i18n import NP_, translator
from bbspoker.door.look import (BACKGROUND, BOX_TO_ASCII, CLASSIC, CP437_SUITS, SUIT_GLYPHS, Look,
                                Pen, blanks, key_marks,
                                attrs_of,
                                clock_pen, handle_pen, overlay, sgr)
from bbspoker.door.messages import WON, log_pen
from bbspoker.rules.cards import Card, Rank, sort_hand
from bbspoker.text import char_width, clean_text, display_width, fit

if TYPE_CHECKING:  # the server passes a blessed.Terminal; only its capabilities are used
    from blessed import Terminal

__all__ = ["Opponent", "GameView", "ScreenRenderer", "WIDTH", "HEIGHT", "MESSAGE_ROWS",
           "CONTINUED", "message_rows", "info_labels", "INFO_LABELS", "INFO_LABEL_WIDTH"]

#: The game screen's size in cells; a smaller window gets the enlarge message.
WIDTH, HEIGHT = 80, 24
#: Number of rows of messages the message area (6) shows (chapter 2.6).
MESSAGE_ROWS = 10
#: The tag of a row that goes on with the message above it (:func:`message_rows`).
CONTINUED = ""
#: The most rows one message takes; what does not fit in them ends in " ...".
MESSAGE_MAX_ROWS = 3

# 0-based rows and columns of the regions.
_OPP_ROW, _SEP_ROW, _CARD_ROW, _STATUS_ROW, _MSG_ROW, _INPUT_ROW = 1, 5, 6, 12, 13, 23
_MID_COL = 42  # the vertical border between left and right halves
_CMD_WIDTH = 34  # command area (4), between a blank on each side
_INFO_WIDTH = 34  # game information (2): label and value, between a blank on each side
_MSG_WIDTH = 75  # message text (6), after the border and the "->" arrow
_INPUT_COL, _INPUT_WIDTH = 2, 75  # chat input (7)
_CLOCK_COL = 73  # " 0:59 " in the status line (5)
_GAP = 8  # fewer unchanged cells than this between two changes are rewritten, not skipped

#: Region (2)'s labels (chapter 2.2), each filled with dots to :data:`INFO_LABEL_WIDTH`
#: cells in the viewer's language (:func:`info_labels`).
INFO_LABELS = (NP_("info label", "Master"), NP_("info label", "Current"),
               NP_("info label", "Pot"), NP_("info label", "Round"))
#: Cells of a label of region (2) with its dots, before the blank and the value.
INFO_LABEL_WIDTH = 13
_CARD_BACK = ("│/\\/\\/│", "│\\/\\/\\│")
_NO_CARD = (" " * 7,) * 6  # where a hand of fewer than five cards has none


class Opponent(NamedTuple):
    """One other player at the table as region (1) shows them (chapter 2.1).

    - ``handle``: their handle (cleaned and cut to 19 cells when drawn).
    - ``competing``: ``True`` while they are still in the game for the pot;
      their cards are then drawn hidden as ``[?] [?] [?] [?] [?]``.
    - ``revealed``: their cards after they revealed them at the showdown
      (drawn face up, highest at the right; takes precedence over ``competing``).
      ``None`` when not revealed.  With neither, only the handle is shown.
    - ``away``: their connection dropped and the seat waits for them to
      reconnect: ``(away)`` follows the handle, which is cut to 12 cells for it.
    - ``bot``: a computer player: `` (bot)`` follows the handle (cut to 13).

    A named tuple, so that comparing and hashing the opponents of two views (on every
    render) runs no Python code.
    """

    handle: str
    competing: bool = False
    revealed: tuple[Card, ...] | None = None
    away: bool = False
    bot: bool = False


@dataclass(slots=True)
class GameView:
    """Everything one player sees on the game screen (chapter 2); the renderer's only input.
    Read-only by convention, not frozen: one is made for every paint, and a frozen
    dataclass takes four times as long to make.

    Region (1), opponents:
      - ``opponents``: up to 4 :class:`Opponent`, in seat order, drawn on rows 2-5.
    Region (2), game information:
      - ``master``: the game-master's handle (``None``: blank).
      - ``current``: the player in turn; ``None`` shows ``NO GAME``.
      - ``pot``: CUBES in the pot; ``None`` shows ``NO GAME``.
      - ``round_label``: ``"1"``, ``"DISCARDING INTERVAL"``, ``"3"`` ...,
        ``"SHOWDOWN"`` or ``"NO GAME"`` (at most 20 cells are shown).
    Region (8), X-message counter and spectators, on the separator line:
      - ``xmsg_count``: X-messages received while at the table; 0 shows nothing.
      - ``watchers``: spectators watching the table, shown at the right of
        the line as ``[2 watching]``; 0 shows nothing.
    Region (3), player's area (chapter 2.3), one of three displays:
      - ``player_message``: when set, this text (e.g. ``"You may join the next
        game."``) is shown instead of cards, wrapped over the six rows;
      - else ``my_cards``: your cards face up, sorted by rank, highest at the
        right (``cards.sort_hand``): in a game, or after it the hand you revealed
        (on show until the next game starts); the cards in ``discards`` are drawn
        face down (selected for discard, chapter 2 "Discarding interval");
      - else (``my_cards`` is ``None``) five cards face down: no game.
    Region (4), command area:
      - ``commands``: the lines of commands valid now, e.g. ``"[B] Place bet"``,
        from the top, at most 34 cells each.
      - ``prompt``: a y/n question, bet prompt or error message for the bottom
        of the command area (wrapped at 34 cells; shown in full, taking
        rows from the commands if needed), e.g. ``"Bet (5-200, Enter = call 5): 2_"``.
    Region (5), status line:
      - ``handle`` and ``cubes``: shown as ``handle [1,234 CUBES]``; with ``chips`` (a
        tournament table, whose money is the tournament's chips) ``handle [1,234 chips]``.
      - ``tournament``: at a tournament table, the forms of its line (level, stakes, time
        to the next level ...), fullest first: the first that fits between
        ``[N chips]`` and the clock is drawn (the last, cut, if none does); ``()``: none.
      - ``clock``: the count-down text such as ``"0:59"`` or ``"3:00"``
        (at most 4 cells), ``None`` for no clock (chapter 2.5).
    Region (6), message area (chapter 2.6):
      - ``messages``: the last rows of messages, oldest first, each
        ``(tag, text)`` with tag ``"SYSTEM"``, ``"INFO"`` or the sender's
        handle, shown as ``[tag] text``; a message too long for one row comes
        as the rows :func:`message_rows` makes of it, the next ones tagged
        :data:`CONTINUED` (shown indented, without a tag). Only the last 10
        rows are drawn; the first row of the newest message gets ``->``.
      - ``message_count``: how many rows this player has been shown in
        total (the sequence number of the newest).  The renderer scrolls the
        area by the growth of this number, so repeated identical messages
        still scroll; it must grow by one for each new row.
    Region (7), input line:
      - ``chat_input``: ``None`` while the chat line is closed, else the text
        typed so far, shown as ``handle: text`` with the cursor after it.
    Everywhere:
      - ``lang``: the viewer's language (:data:`bbspoker.door.i18n.LANGUAGES`) of the
        labels the renderer writes itself (region (2)'s labels and ``NO GAME``, the
        X-message counter, ``CUBES``) and of its numbers; the texts in the other fields
        come translated.
    """

    handle: str
    cubes: int
    opponents: tuple[Opponent, ...] = ()
    master: str | None = None
    current: str | None = None
    pot: int | None = None
    round_label: str = "NO GAME"
    xmsg_count: int = 0
    watchers: int = 0
    chips: bool = False
    tournament: tuple[str, ...] = ()
    my_cards: tuple[Card, ...] | None = None
    discards: frozenset[Card] = frozenset()
    player_message: str | None = None
    commands: tuple[str, ...] = ()
    prompt: str | None = None
    clock: str | None = None
    messages: tuple[tuple[str, str], ...] = ()
    message_count: int = 0
    chat_input: str | None = None
    lang: str = "en"


_LEFT, _RIGHT = slice(1, _MID_COL), slice(_MID_COL + 1, WIDTH - 1)  # inside the borders
_LEFT_WIDTH, _RIGHT_WIDTH = _LEFT.stop - _LEFT.start, _RIGHT.stop - _RIGHT.start

# The screen's rows before any region is drawn on them: the borders and rules, drawn in
# box drawing (a double outer frame) that the classic look shows as the mock-up's + - |.
_TOP = "╔" + "═" * _LEFT_WIDTH + "╤" + "═" * _RIGHT_WIDTH + "╗"
_SEP = "╟" + "─" * _LEFT_WIDTH + "┼" + "─" * _RIGHT_WIDTH + "╢"
_UNDER = "╟" + "─" * _LEFT_WIDTH + "┴" + "─" * _RIGHT_WIDTH + "╢"  # the status line
_HALVES = "║" + " " * _LEFT_WIDTH + "│" + " " * _RIGHT_WIDTH + "║"
_FRAME: tuple[str, ...] = (
    _TOP, *[_HALVES] * (_SEP_ROW - _OPP_ROW), _SEP, *[_HALVES] * (_STATUS_ROW - _CARD_ROW),
    _UNDER, *["║" + " " * (WIDTH - 2) + "║"] * MESSAGE_ROWS, ">" + " " * (WIDTH - 3) + "< ",
)
_BLANK_LINE = " " * WIDTH  # a line scrolled in, or not painted yet


def _fitted(encoding: str, text: str, width: int | None = None) -> str:
    """``text`` as it is drawn: cleaned (:func:`clean_text`), what ``encoding`` cannot carry
    turned into ``?`` (so widths stay right; a suit glyph, which a CP437 session sends as
    its own byte, is kept), padded/cut to ``width`` cells (default: as is)."""
    text = clean_text(text)
    if encoding != "utf-8" and not text.isascii():
        text = "".join(ch if ch in CP437_SUITS else ch.encode(encoding, "replace").decode(encoding)
                       for ch in text)
    return text if width is None else fit(text, width)


def _card_text(card: Card) -> str:
    """A card as drawn in a line: rank and suit glyph, ``"10♥"``."""
    return card.rank.symbol + SUIT_GLYPHS[card.suit.symbol]


def _over(base: str, col: int, text: str) -> str:
    """``base`` (ASCII, one cell per character) with ``text`` drawn over it from cell ``col``."""
    return base[:col] + text + base[col + display_width(text):]


def _cells(row: str) -> Sequence[str]:
    """The cells of a row of text: the str itself when it is ASCII (one cell per character),
    else a list in which a wide character's right half is ``""`` and a combining mark stays
    in its base character's cell."""
    if row.isascii():
        return row
    cells: list[str] = []
    for ch in row:
        width = char_width(ch)
        if width == 0:
            cells[-1 if cells[-1] else -2] += ch
            continue
        cells.append(ch)
        if width == 2:
            cells.append("")
    return cells


# -- The regions. Each is drawn by a function of the GameView and the session's encoding
# that returns the text of the region's rows, each exactly as wide (in cells) as the region.


def _draw_opponents(view: GameView, encoding: str) -> tuple[str, ...]:
    """Region (1): handles and hidden or revealed cards of up to four opponents."""
    rows = [_opponent_row(encoding, opp) for opp in view.opponents[:4]]
    return (*rows, *[" " * _LEFT_WIDTH] * (_SEP_ROW - _OPP_ROW - len(rows)))


@lru_cache(maxsize=2048)
def _opponent_row(encoding: str, opp: Opponent) -> str:
    """One row of region (1): the handle in 19 cells, a blank, the cards (20 cells); the
    same on every screen that shows ``opp``, whatever row it is on (cached)."""
    if opp.revealed is not None:
        cards = " ".join(f"{_card_text(card):>3}" for card in sort_hand(opp.revealed))  # " 9♣ 10♥  J♠"
    elif opp.competing:
        cards = " ".join(["[?]"] * 5)
    else:
        cards = ""
    if opp.away:
        return (f" {_fitted(encoding, opp.handle, 12)} (away) "
                f"{_fitted(encoding, cards, _LEFT_WIDTH - 21)}")
    if opp.bot:
        name = _fitted(encoding, opp.handle, 13).rstrip() + " (bot)"
        return f" {fit(name, 19)} {_fitted(encoding, cards, _LEFT_WIDTH - 21)}"
    return f" {_fitted(encoding, opp.handle, 19)} {_fitted(encoding, cards, _LEFT_WIDTH - 21)}"


@lru_cache(maxsize=8)
def info_labels(lang: str) -> tuple[str, ...]:
    """Region (2)'s labels in ``lang``, each the word and its dots in
    :data:`INFO_LABEL_WIDTH` cells and a blank: ``"Master ...... "``, German
    ``"Spielleiter . "`` (a word too long is cut)."""
    t = translator(lang)
    labels = []
    for label in INFO_LABELS:
        word = clean_text(t.pgettext(*label), INFO_LABEL_WIDTH)
        dots = INFO_LABEL_WIDTH - display_width(word) - 1
        labels.append(f"{word} {'.' * dots} " if dots > 0 else fit(word, INFO_LABEL_WIDTH) + " ")
    return tuple(labels)


def _draw_info(view: GameView, encoding: str) -> tuple[str, ...]:
    """Region (2): the Master/Current/Pot/Round labels and their values."""
    return tuple(_info_row(encoding, label, value)
                 for label, value in zip(info_labels(view.lang), _info_values(view)))


def _info_values(view: GameView) -> tuple[str, ...]:
    """The values region (2) shows, as text."""
    t = translator(view.lang)
    return (
        view.master or "",
        view.current if view.current is not None else t.gettext("NO GAME"),
        t.number(view.pot) if view.pot is not None else t.gettext("NO GAME"),
        view.round_label,
    )


@lru_cache(maxsize=2048)
def _info_row(encoding: str, label: str, value: str) -> str:
    """One row of region (2): `` label value `` (cached: most values stay for many screens)."""
    return f" {label}{_fitted(encoding, value, _INFO_WIDTH - display_width(label))} "


def _draw_xmsg(view: GameView, encoding: str) -> tuple[str, ...]:
    """Region (8): the X-message counter and the spectators in the separator line."""
    line = _SEP
    t = translator(view.lang)
    if view.xmsg_count > 0:
        count = t.ngettext("[{n} X-message]", "[{n} X-messages]", view.xmsg_count)
        line = _over(line, 15, _fitted(encoding, count.format(n=t.number(view.xmsg_count))))
    if view.watchers > 0:
        watching = _fitted(encoding, t.ngettext("[{n} watching]", "[{n} watching]",
                                                view.watchers).format(n=t.number(view.watchers)))
        line = _over(line, WIDTH - 3 - display_width(watching), watching)
    return (line,)


@lru_cache(maxsize=64)
def _card_box(card: Card | None) -> tuple[str, ...]:
    """The six lines of one 7x6 card box, 7 one-cell characters each: face up for a card,
    the patterned back for None."""
    if card is None:
        return ("┌─────┐", *(_CARD_BACK * 2), "└─────┘")
    rank, suit = card.rank.symbol, SUIT_GLYPHS[card.suit.symbol]
    corner = f"10{suit} {suit}10" if card.rank is Rank.TEN else f"│{rank}{suit} {suit}{rank}│"
    pips = f"│{suit}   {suit}│"
    return ("┌─────┐", corner, pips, pips, corner, "└─────┘")


@lru_cache(maxsize=256)
def _wrap6(text: str, width: int) -> tuple[str, ...]:
    """``text`` cleaned and wrapped at ``width`` cells: its first six lines (cached: the same
    prompts and player messages come back all the time, and wrapping is slow)."""
    return tuple(wrap(clean_text(text, 6 * width), width)[:6])


def _draw_player(view: GameView, encoding: str) -> tuple[str, ...]:
    """Region (3): the player's message, or their cards (face down when selected for discard)."""
    if view.player_message is not None:
        lines = [f" {_fitted(encoding, line, _LEFT_WIDTH - 1)}"
                 for line in _wrap6(view.player_message, _LEFT_WIDTH - 3)]
        return (*lines, *[" " * _LEFT_WIDTH] * (_STATUS_ROW - _CARD_ROW - len(lines)))
    hand = sort_hand(view.my_cards) if view.my_cards is not None else (None,) * 5
    boxes = [_card_box(None if card in view.discards else card) for card in hand[:5]]
    boxes += [_NO_CARD] * (5 - len(boxes))
    return tuple(f" {' '.join(lines)} " for lines in zip(*boxes))


def _draw_commands(view: GameView, encoding: str) -> tuple[str, ...]:
    """Region (4): the commands from the top, the prompt (wrapped) at the bottom."""
    prompt = _wrap6(view.prompt, _CMD_WIDTH) if view.prompt else ()
    lines = [f" {_fitted(encoding, line, _CMD_WIDTH)} " for line in (*view.commands[: 6 - len(prompt)], *prompt)]
    return (*lines, *[" " * _RIGHT_WIDTH] * (_STATUS_ROW - _CARD_ROW - len(lines)))


def _money(view: GameView) -> str:
    """Region (5)'s ``[N CUBES]``, or ``[N chips]`` at a tournament table."""
    t = translator(view.lang)
    text = t.gettext("[{n} chips]") if view.chips else t.gettext("[{n} CUBES]")
    return text.format(n=t.number(view.cubes))


def _draw_status(view: GameView, encoding: str) -> tuple[str, ...]:
    """Region (5): ``handle [N CUBES]`` (or chips) in the status line, and at a
    tournament table its line (:func:`_tournament_text`) at the right, before the clock."""
    cubes = _money(view)
    status = clean_text(f" {clean_text(view.handle, 16)} {cubes} ", _MID_COL - 3)
    col = 11 if 11 + display_width(status) < _MID_COL else 2
    row = _UNDER[:_CLOCK_COL]
    if view.tournament:     # first: left of it the row is one character a cell
        start, text = _tournament_text(view, col + display_width(status))
        row = _over(row, start, _fitted(encoding, f" {text} "))
    return (_over(row, col, _fitted(encoding, status)),)


def _tournament_text(view: GameView, after: int) -> tuple[int, str]:
    """Where region (5) draws the tournament line when its own text ends before column
    ``after``, and what of it: the first of :attr:`GameView.tournament`'s forms that fits
    (else the last, cut) between two rule cells after the status text and one before
    the clock, a blank each side of it; returns (the column of that first blank, the
    text). At least 26 cells are left for it (the status text ends by column 42)."""
    room = _CLOCK_COL - 1 - after - 2 - 2
    forms = [clean_text(form) for form in view.tournament]
    text = next((form for form in forms if display_width(form) <= room), None)
    if text is None:
        text = fit(forms[-1], room).rstrip()
    return _CLOCK_COL - 1 - display_width(text) - 2, text


def _status_layout(view: GameView) -> tuple[int, int, int, tuple[int, int] | None]:
    """Where region (5) draws its text: the column of its blank before the handle, the
    cells of the handle and of ``[N CUBES]``, and the tournament line's first cell and
    width (``None``: no line)."""
    handle = clean_text(view.handle, 16)
    cubes = _money(view)
    status = clean_text(f" {handle} {cubes} ", _MID_COL - 3)
    col = 11 if 11 + display_width(status) < _MID_COL else 2
    line = None
    if view.tournament:
        start, text = _tournament_text(view, col + display_width(status))
        line = (start + 1, display_width(text))
    return (col, display_width(handle), display_width(status) - display_width(handle) - 3,
            line)


def _draw_clock(view: GameView, encoding: str) -> tuple[str, ...]:
    """Region (5), right end: the count-down clock, e.g. `` 0:59 ``."""
    if view.clock is None:
        return (_UNDER[_CLOCK_COL:],)
    return (_over(_UNDER[_CLOCK_COL:], 0, _fitted(encoding, f" {clean_text(view.clock, 4)} ")),)


def _shown_messages(view: GameView) -> tuple[tuple[str, str], ...]:
    return view.messages[-MESSAGE_ROWS:]


@lru_cache(maxsize=1024)
def message_rows(tag: str, text: str) -> tuple[tuple[str, str], ...]:
    """The rows of region (6) that the message ``[tag] text`` takes, as entries of
    :attr:`GameView.messages`: ``(tag, first line)``, then ``(CONTINUED, line)`` for each
    next line, indented under the first line's text; the tag :data:`~bbspoker.door.messages.WON`
    stays as it is (it is drawn as ``SYSTEM``). The text (cleaned, :func:`clean_text`)
    is wrapped at spaces (not hyphens) to the row's 75 cells (a win with a long hand, a SYSTEM notice,
    chapter 2.6), in at most :data:`MESSAGE_MAX_ROWS` rows. Cached: every screen at the
    table is shown the same messages."""
    won = tag == WON
    tag = clean_text(tag, 16)
    text = clean_text(text)
    indent = display_width(tag) + 3  # "[tag] "
    if won:
        tag = WON       # cleaned where it is drawn
    if indent + display_width(text) <= _MSG_WIDTH:
        return ((tag, text),)
    lines = wrap(text, _MSG_WIDTH - indent, max_lines=MESSAGE_MAX_ROWS, placeholder=" ...",
                 break_on_hyphens=False) or [""]  # a handle such as Jean-Christoph stays whole
    return ((tag, lines[0]), *((CONTINUED, " " * indent + line) for line in lines[1:]))


def _draw_messages(view: GameView, encoding: str) -> tuple[str, ...]:
    """Region (6): the last rows of messages from the top, whole rows with their borders;
    ``->`` on the first row of the newest message."""
    shown = _shown_messages(view)
    newest = next((i for i in range(len(shown) - 1, -1, -1) if shown[i][0] != CONTINUED), -1)
    rows = [_message_row(encoding, tag, text, i == newest) for i, (tag, text) in enumerate(shown)]
    return (*rows, *[_FRAME[_MSG_ROW]] * (MESSAGE_ROWS - len(rows)))


@lru_cache(maxsize=8192)
def _message_row(encoding: str, tag: str, text: str, newest: bool) -> str:
    """One row of region (6) with its borders: ``[tag] text`` (``text`` alone for a
    :data:`CONTINUED` row), ``->`` before the newest message (cached: the same messages
    go to every screen at the table, and a message area's other nine rows come back at
    its next message; sized for ~400 busy tables' ten rows in two forms each: at 1,024
    the rows of 200 tables pushed each other out, 8 of 10 drawn again)."""
    line = text if tag == CONTINUED else f"[{clean_text(tag, 16)}] {text}"
    message = _fitted(encoding, clean_text(line, _MSG_WIDTH), _MSG_WIDTH)
    return f"║{'->' if newest else '  '}{message} ║"


def _typed(view: GameView) -> str:
    """What region (7) shows of an open chat line: the end of ``handle: text`` that fits."""
    if view.chat_input is None:
        return ""
    return _tail(f"{view.handle}: {view.chat_input}", _INPUT_WIDTH - 1)


def _draw_input(view: GameView, encoding: str) -> tuple[str, ...]:
    """Region (7): ``handle: text`` of an open chat line (the cursor goes after it)."""
    return (f"> {_fitted(encoding, _typed(view), WIDTH - 4)}< ",)


def _tail(text: str, width: int) -> str:
    """The end of ``text`` (cleaned) that fits in ``width`` cells: long input scrolls left."""
    text = clean_text(text)
    if text.isascii():  # cleaned ASCII: one cell per character
        return text[max(0, len(text) - width):]
    kept: list[str] = []
    for ch in reversed(text):
        width -= char_width(ch)
        if width < 0:
            break
        kept.append(ch)
    return "".join(reversed(kept))


# -- The colours of the regions (a colour look only). Each style function takes the view
# and the region's drawn rows and returns each row's pen marks (bbspoker.door.look:
# one character per character of the row, its Pen as a code point).


def _style_opponents(view: GameView, rows: tuple[str, ...]) -> tuple[str, ...]:
    """Region (1): the player in turn highlighted, players out of the game (passed, away)
    dimmed, hidden cards as card backs, revealed cards as card faces."""
    out = []
    for i, row in enumerate(rows):
        if i < len(view.opponents):
            opp = view.opponents[i]
            if view.current is not None and opp.handle == view.current:
                pen = Pen.TURN
            elif opp.away or (view.current is not None and not opp.competing
                              and opp.revealed is None):
                pen = Pen.FOLDED
            else:
                pen = Pen.VALUE
            out.append(_opponent_attrs(row, opp, pen))
        else:
            out.append(attrs_of(row))
    return tuple(out)


@lru_cache(maxsize=4096)
def _opponent_attrs(row: str, opp: Opponent, pen: Pen) -> str:
    """The marks of ``opp``'s row of region (1): the handle in ``pen`` (the handle
    itself: a background on its padding would cost bytes at every turn), the cards as
    faces or backs (cached: the same rows come back on every screen)."""
    name = display_width(clean_text(opp.handle, 12 if opp.away else 13 if opp.bot else 19))
    attrs = overlay(row, attrs_of(row), 1, name, pen)
    cards = Pen.CARD if opp.revealed is not None else Pen.CARD_BACK
    return overlay(row, attrs, 21, _LEFT_WIDTH - 21, cards)


def _style_info(view: GameView, rows: tuple[str, ...]) -> tuple[str, ...]:
    """Region (2): labels, and their values: the player in turn and the pot stand out."""
    return tuple(map(_info_attrs, rows, _info_pens(view)))


def _info_pens(view: GameView) -> tuple[Pen, ...]:
    """The pens of region (2)'s values."""
    return (Pen.VALUE, Pen.TURN if view.current is not None else Pen.VALUE,
            Pen.POT if view.pot is not None else Pen.VALUE, Pen.VALUE)


def _info_attrs(row: str, pen: Pen) -> str:
    """The marks of a row of region (2): its label, and its value in ``pen``."""
    attrs = overlay(row, attrs_of(row), 1, INFO_LABEL_WIDTH, Pen.LABEL)
    value = display_width(row.rstrip()) - 1 - INFO_LABEL_WIDTH      # its text, no padding
    return overlay(row, attrs, 1 + INFO_LABEL_WIDTH, value, pen)


def _style_words(view: GameView, rows: tuple[str, ...]) -> tuple[str, ...]:
    """A rule with words on it (the X-message counter, spectators): the words as values."""
    return tuple(_words(row, Pen.VALUE) for row in rows)


def _words(row: str, pen: Pen) -> str:
    """The marks of ``row``: its glyphs' own pens, every other character but a blank in
    ``pen``."""
    attrs = attrs_of(row)
    mark = chr(pen)
    return "".join(mark if a == "\x00" and ch != " " else a for ch, a in zip(row, attrs))


def _style_player(view: GameView, rows: tuple[str, ...]) -> tuple[str, ...]:
    """Region (3): a message as a prompt; cards face up as card faces (suits keep their
    colour), face down (no game, or chosen to discard) as card backs."""
    if view.player_message is not None:
        return tuple(overlay(row, attrs_of(row), 1, _LEFT_WIDTH - 1, Pen.PROMPT) for row in rows)
    hand = sort_hand(view.my_cards) if view.my_cards is not None else (None,) * 5
    out = []
    for row in rows:
        attrs = attrs_of(row)
        for k, card in enumerate(hand[:5]):
            face = card is not None and card not in view.discards
            attrs = overlay(row, attrs, 1 + 8 * k, 7, Pen.CARD if face else Pen.CARD_BACK)
        out.append(attrs)
    return tuple(out)


def _style_commands(view: GameView, rows: tuple[str, ...]) -> tuple[str, ...]:
    """Region (4): the commands' keys, the prompt (or refusal) at the bottom."""
    prompt = len(_wrap6(view.prompt, _CMD_WIDTH)) if view.prompt else 0
    commands = min(len(view.commands), 6 - prompt)
    out = []
    for i, row in enumerate(rows):
        attrs = attrs_of(row)
        if commands <= i < commands + prompt:
            attrs = overlay(row, attrs, 1, _CMD_WIDTH, Pen.PROMPT)
        out.append(key_marks(row, attrs))
    return tuple(out)


def _style_status(view: GameView, rows: tuple[str, ...]) -> tuple[str, ...]:
    """Region (5): your handle as yourself, your CUBES as a value, a tournament's line
    as a label."""
    col, handle, cubes, line = _status_layout(view)
    attrs = overlay(rows[0], attrs_of(rows[0]), col + 1, handle, Pen.SELF)
    attrs = overlay(rows[0], attrs, col + 2 + handle, cubes, Pen.VALUE)
    if line is not None:
        attrs = overlay(rows[0], attrs, line[0], line[1], Pen.LABEL)
    return (attrs,)


def _style_clock(view: GameView, rows: tuple[str, ...]) -> tuple[str, ...]:
    """Region (5), right end: the clock, yellow in its last 30 s and red in its last 10 s."""
    return (_clock_attrs(view.clock, rows[0]),)


@lru_cache(maxsize=256)
def _clock_attrs(clock: str | None, row: str) -> str:
    attrs = attrs_of(row)
    if clock is None:
        return attrs
    minutes, _, seconds = clock.partition(":")
    left = int(minutes) * 60 + int(seconds) if minutes.isdigit() and seconds.isdigit() else None
    return overlay(row, attrs, 1, display_width(clock), clock_pen(left))


def _style_messages(view: GameView, rows: tuple[str, ...]) -> tuple[str, ...]:
    """Region (6): who won stands out, SYSTEM and INFO lines dimmer than chat, each chat
    handle in its own colour, the newest message's arrow as a key."""
    out = []
    pen = Pen.SYSTEM
    for (tag, _text), row in zip(_shown_messages(view), rows):
        if tag != CONTINUED:
            pen = log_pen(tag)
        out.append(_message_attrs(row, tag, pen))
    out += [attrs_of(row) for row in rows[len(out):]]
    return tuple(out)


@lru_cache(maxsize=8192)
def _message_attrs(row: str, tag: str, pen: Pen) -> str:
    """The marks of a message row ``row`` tagged ``tag`` (``pen``: the pen of the message
    a continued row belongs to)."""
    attrs = overlay(row, attrs_of(row), 1, 2, Pen.KEY)       # the newest message's arrow
    if tag == CONTINUED:
        return overlay(row, attrs, 3, _MSG_WIDTH, pen)
    pen = log_pen(tag)
    if pen is not Pen.CHAT:
        return overlay(row, attrs, 3, _MSG_WIDTH, pen)
    width = display_width(clean_text(tag, 16)) + 2
    attrs = overlay(row, attrs, 3, width, handle_pen(tag))
    return overlay(row, attrs, 3 + width, _MSG_WIDTH - width, Pen.CHAT)


def _style_plain(view: GameView, rows: tuple[str, ...]) -> tuple[str, ...]:
    """A region drawn in its glyphs' own pens only."""
    return tuple(attrs_of(row) for row in rows)


# -- A colour look's rows of the regions redrawn most often, made row by row: each row as
# the session shows it (Look.glyphs) and its pen marks with blanks as blanks() leaves
# them, from one cache look-up instead of a draw, a style, a glyph and a blank pass
# each. The same rows and marks as the region's draw and style functions make (the
# functions below are built from them), so byte for byte the same screens.

#: A row of the region and its marks: (row in the look's glyphs, marks after blanks()).
_Line = tuple[str, str]


def _pen_of_opponent(current: str | None, opp: Opponent) -> Pen:
    """The pen of ``opp``'s handle in region (1) with ``current`` in turn
    (:func:`_style_opponents`)."""
    if current is not None and opp.handle == current:
        return Pen.TURN
    if opp.away or (current is not None and not opp.competing and opp.revealed is None):
        return Pen.FOLDED
    return Pen.VALUE


@lru_cache(maxsize=4096)
def _opponent_line(encoding: str, look: Look, opp: Opponent, pen: Pen) -> _Line:
    """Region (1)'s row of ``opp`` with its handle in ``pen`` (cached: the same rows come
    back on every screen at the table, whatever row each shows them on)."""
    row = _opponent_row(encoding, opp)
    return look.glyphs(row), blanks(row, _opponent_attrs(row, opp, pen))


_NO_OPPONENT: _Line = (" " * _LEFT_WIDTH, "\x00" * _LEFT_WIDTH)


def _opponent_lines(view: GameView, encoding: str, look: Look
                    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Region (1) in a colour look: (rows, marks) as :func:`_draw_opponents` and
    :func:`_style_opponents` make them."""
    return _opponents_laid_out(view.opponents, view.current, encoding, look)


@lru_cache(maxsize=4096)
def _opponents_laid_out(opponents: tuple[Opponent, ...], current: str | None, encoding: str,
                        look: Look) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """:func:`_opponent_lines` of ``opponents`` with ``current`` in turn (cached: each
    screen's region differs, as it leaves its own player out, but comes back at every
    game: in a replay of 50 tables' play four of five were found here)."""
    lines = [_opponent_line(encoding, look, opp, _pen_of_opponent(current, opp))
             for opp in opponents[:4]]
    lines += [_NO_OPPONENT] * (_SEP_ROW - _OPP_ROW - len(lines))
    rows, marks = zip(*lines)
    return rows, marks


@lru_cache(maxsize=512)
def _card_line(card: Card | None, face: bool, index: int, look: Look) -> _Line:
    """Line ``index`` (0-5) of a card's box in region (3): ``card``'s face (``None``: its
    back) drawn in :attr:`Pen.CARD` (``face``) or :attr:`Pen.CARD_BACK`, suits in their
    own colours, as :func:`_style_player` marks the cells of a card."""
    text = _card_box(card)[index]
    pen = Pen.CARD if face else Pen.CARD_BACK
    return look.glyphs(text), blanks(text, overlay(text, attrs_of(text), 0, len(text), pen))


_NO_CARD_LINE: _Line = (_NO_CARD[0], "\x00" * len(_NO_CARD[0]))


def _player_lines(view: GameView, encoding: str, look: Look
                  ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Region (3) in a colour look: (rows, marks) as :func:`_draw_player` and
    :func:`_style_player` make them; cards line by line from :func:`_card_line`."""
    if view.player_message is not None:
        drawn = _draw_player(view, encoding)
        return (tuple(map(look.glyphs, drawn)),
                tuple(map(blanks, drawn, _style_player(view, drawn))))
    hand = sort_hand(view.my_cards) if view.my_cards is not None else (None,) * 5
    shown = [(None if card in view.discards else card,
              card is not None and card not in view.discards) for card in hand[:5]]
    rows, marks = [], []
    for index in range(_STATUS_ROW - _CARD_ROW):
        lines = [_card_line(card, face, index, look) for card, face in shown]
        lines += [_NO_CARD_LINE] * (5 - len(lines))
        rows.append(" " + " ".join(line[0] for line in lines) + " ")
        marks.append("\x00" + "\x00".join(line[1] for line in lines) + "\x00")
    return tuple(rows), tuple(marks)


@lru_cache(maxsize=8192)
def _message_line(encoding: str, look: Look, tag: str, text: str, newest: bool,
                  pen: Pen) -> _Line:
    """Region (6)'s row of ``[tag] text`` (``newest``: with the arrow), in ``pen`` (the
    pen of the message it belongs to), as :func:`_message_row` and
    :func:`_message_attrs` make it (cached: the same rows go to every screen). A row
    that is no longer the newest differs from its newest form in the arrow's two cells
    only (blanks, in no pen), so it is made from that form, which the row had a step
    before."""
    if not newest and tag != CONTINUED:
        glyphs, marks = _message_line(encoding, look, tag, text, True, pen)
        return glyphs[:1] + "  " + glyphs[3:], marks[:1] + "\x00\x00" + marks[3:]
    row = _message_row(encoding, tag, text, newest)
    return look.glyphs(row), blanks(row, _message_attrs(row, tag, pen))


@lru_cache(maxsize=2048)
def _info_line(encoding: str, look: Look, label: str, value: str, pen: Pen) -> _Line:
    """Region (2)'s row of ``label`` and ``value``, the value in ``pen``, as
    :func:`_info_row` and :func:`_style_info` make it (cached: most values stay for many
    steps, the handles in turn come back)."""
    row = _info_row(encoding, label, value)
    return look.glyphs(row), blanks(row, _info_attrs(row, pen))


def _info_lines(view: GameView, encoding: str, look: Look
                ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Region (2) in a colour look: (rows, marks) as :func:`_draw_info` and
    :func:`_style_info` make them."""
    rows, marks = zip(*map(_info_line, (encoding,) * 4, (look,) * 4, info_labels(view.lang),
                           _info_values(view), _info_pens(view)))
    return rows, marks


def _message_lines(view: GameView, encoding: str, look: Look
                   ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Region (6) in a colour look: (rows, marks) as :func:`_draw_messages` and
    :func:`_style_messages` make them."""
    shown = _shown_messages(view)
    newest = next((i for i in range(len(shown) - 1, -1, -1) if shown[i][0] != CONTINUED), -1)
    lines = []
    pen = Pen.SYSTEM
    for i, (tag, text) in enumerate(shown):
        if tag != CONTINUED:
            pen = log_pen(tag)
        lines.append(_message_line(encoding, look, tag, text, i == newest, pen))
    if len(lines) < MESSAGE_ROWS:
        lines += [_empty_message_line(look)] * (MESSAGE_ROWS - len(lines))
    rows, marks = zip(*lines)
    return rows, marks


@lru_cache(maxsize=16)
def _empty_message_line(look: Look) -> _Line:
    """A row of region (6) with no message: its borders."""
    row = _FRAME[_MSG_ROW]
    return look.glyphs(row), blanks(row, attrs_of(row))


class _Region(NamedTuple):
    """A rectangle of the screen (``rows`` x ``cols`` cells), drawn by ``draw`` from the
    :class:`GameView` fields that ``key`` returns and nothing else (``draw(view, encoding)``
    returns the text of its rows; ``style(view, rows)`` their pen marks in a colour look,
    from the same fields). ``shared``: its changes recur on many screens (the
    same bet on every screen at the table), so its layouts and the bytes of each row's
    change are kept for the next screen (:data:`_REGION_CACHE`, :data:`_PIECE_CACHE`).
    ``per_screen``: a shared region whose whole layout differs on every screen (the
    opponents: each screen leaves its own player out) keeps only its row changes, not its
    whole changes: one screen's change is seldom another's (its layouts come back at the
    next game, which its ``lines`` keep, :func:`_opponents_laid_out`).
    ``lines``: in a colour look, a function of (view, encoding, look) that gives the rows
    in the look's glyphs and their marks after :func:`~bbspoker.door.look.blanks` at
    once, equal to what ``draw`` and ``style`` make, from caches of whole rows (the
    regions redrawn at most steps); ``None``: ``draw`` and ``style``."""

    rows: range
    cols: slice
    key: Callable[[GameView], object]
    draw: Callable[[GameView, str], tuple[str, ...]]
    style: Callable[[GameView, tuple[str, ...]], tuple[str, ...]]
    shared: bool
    per_screen: bool = False
    lines: Callable[[GameView, str, Look], tuple[tuple[str, ...], tuple[str, ...]]] | None = None


_REGIONS = (
    # The player in turn is part of the key: their row is highlighted in a colour look.
    _Region(range(_OPP_ROW, _SEP_ROW), _LEFT, attrgetter("opponents", "current"), _draw_opponents, _style_opponents, True, per_screen=True, lines=_opponent_lines),
    _Region(range(_OPP_ROW, _SEP_ROW), _RIGHT, attrgetter("master", "current", "pot", "round_label", "lang"), _draw_info, _style_info, True, lines=_info_lines),
    _Region(range(_SEP_ROW, _SEP_ROW + 1), slice(0, WIDTH), attrgetter("xmsg_count", "watchers", "lang"), _draw_xmsg, _style_words, True),
    _Region(range(_CARD_ROW, _STATUS_ROW), _LEFT, attrgetter("player_message", "my_cards", "discards"), _draw_player, _style_player, False, lines=_player_lines),
    _Region(range(_CARD_ROW, _STATUS_ROW), _RIGHT, attrgetter("commands", "prompt"), _draw_commands, _style_commands, True),
    _Region(range(_STATUS_ROW, _MSG_ROW), slice(0, _CLOCK_COL), attrgetter("handle", "cubes", "chips", "tournament", "lang"), _draw_status, _style_status, False),
    _Region(range(_STATUS_ROW, _MSG_ROW), slice(_CLOCK_COL, WIDTH), attrgetter("clock"), _draw_clock, _style_clock, True),
    # Whole rows, borders too: a scroll blanks whole lines.
    _Region(range(_MSG_ROW, _INPUT_ROW), slice(0, WIDTH), _shown_messages, _draw_messages, _style_messages, True, lines=_message_lines),
    # Not shared: typing in the chat line moves the cursor from where it is (one byte a key).
    _Region(range(_INPUT_ROW, HEIGHT), slice(0, WIDTH), attrgetter("handle", "chat_input"), _draw_input, _style_plain, False),
)
_MESSAGES = next(i for i, r in enumerate(_REGIONS) if r.draw is _draw_messages)
_INPUT = len(_REGIONS) - 1
# Regions from the right to the left: a full paint puts each region's rows into frame rows
# whose cells left of it are still one ASCII character each.
_RIGHT_TO_LEFT = sorted(range(len(_REGIONS)), key=lambda i: -_REGIONS[i].cols.start)
_INDEXED = tuple(enumerate(_REGIONS))
_CLOCK = next(i for i, r in enumerate(_REGIONS) if r.draw is _draw_clock)
#: The clock region's rows by (encoding, clock text) (:meth:`ScreenRenderer.render_clock`).
_CLOCK_CACHE: dict[tuple[str, str | None], tuple[str, ...]] = {}


class _ClockOnly(NamedTuple):
    """What :func:`_draw_clock` reads of a view."""

    clock: str | None
_NOTHING = object()  # the key of a region not drawn yet

#: Laid-out regions shared by every screen: (region index, encoding, key) to the text of
#: the region's rows. A bet changes the same regions the same way on most screens at the
#: table; each is laid out once.
_REGION_CACHE: dict[tuple[int, str, object], tuple[str, ...]] = {}
_REGION_CACHE_SIZE = 2048


def _region_rows(index: int, encoding: str, key: object, view: GameView) -> tuple[str, ...]:
    """The rows of region ``index`` drawn for ``view`` (whose fields give ``key``), cached
    in :data:`_REGION_CACHE`."""
    rows = _REGION_CACHE.get((index, encoding, key))
    if rows is None:
        rows = _REGIONS[index].draw(view, encoding)
        _remember(_REGION_CACHE, _REGION_CACHE_SIZE, (index, encoding, key), rows)
    return rows


#: The pen marks of laid-out shared regions: (region index, encoding, key) to each row's
#: marks (a colour look's, :data:`_REGION_CACHE`'s companion).
_STYLE_CACHE: dict[tuple[int, str, object], tuple[str, ...]] = {}


def _region_attrs(index: int, encoding: str, key: object, view: GameView,
                  drawn: tuple[str, ...]) -> tuple[str, ...]:
    """The pen marks of region ``index``'s rows ``drawn`` for ``view`` (whose fields
    give ``key``), cached in :data:`_STYLE_CACHE`."""
    attrs = _STYLE_CACHE.get((index, encoding, key))
    if attrs is None:
        attrs = _REGIONS[index].style(view, drawn)
        _remember(_STYLE_CACHE, _REGION_CACHE_SIZE, (index, encoding, key), attrs)
    return attrs


#: The bytes that change one row of a shared region from one text to another, made once
#: for every screen at the table: (terminal, row, first column, old text, new text) to
#: (bytes, cursor after them). Each starts with a cursor address.
_PIECE_CACHE: dict[tuple[object, ...], tuple[str, tuple[int, int] | None]] = {}
#: Sized for the changes of the opponents' rows to come back at the next game: at 4,096,
#: 50 busy tables emptied it every ~1,000 actions (a replay of their renders: 7 times,
#: 10,000 of 77,000 look-ups of opponents' rows missed; at 16,384 once, 5,600).
_PIECE_CACHE_SIZE = 16384
#: A row's change made for many screens in a colour look: (the bytes up to its first SGR,
#: the pen that SGR goes to, the bytes after it, cursor after them, pen after them); each
#: screen puts between the two parts the SGR from its own pen. With no cell written (pen
#: after ``None``) the first part is all of it.
_SharedPiece = tuple[str, int, str, tuple[int, int] | None, int | None]
#: The same for a colour look: (terminal, row, first column, old text, new text, old
#: marks, new marks) to a :data:`_SharedPiece`.
_COLOUR_PIECE_CACHE: dict[tuple[object, ...], _SharedPiece] = {}


def _shared_piece(term: Terminal, row: int, col0: int, old: str, new: str,
                  old_attrs: str | None, new_attrs: str) -> _SharedPiece:
    """:func:`_diff_colour` of one row of a shared region from an unknown cursor and pen,
    made once for every screen that had ``old`` in ``old_attrs`` on the row
    (:data:`_COLOUR_PIECE_CACHE`), cut where its first SGR goes."""
    cache_key = (term, row, col0, old, new, old_attrs, new_attrs)
    cached = _COLOUR_PIECE_CACHE.get(cache_key)
    if cached is None:
        text, cursor, after = _diff_colour(term, row, col0, old, new, old_attrs, new_attrs,
                                           None, None)
        if after is None:
            cached = (text, 0, "", cursor, None)
        else:
            at = text.index(_FIRST)
            cached = (text[:at], ord(text[at + 1]), text[at + 2:], cursor, after)
        _remember(_COLOUR_PIECE_CACHE, _PIECE_CACHE_SIZE, cache_key, cached)
    return cached


#: A shared region's whole change, made once per table step for every screen with the
#: same terminal, encoding and look (the language is in the region's key): (region index,
#: terminal, encoding, look, key shown, new key, lines scrolled) to (the new rows, their
#: pen marks or ``None`` in the classic look, the pieces of the changed rows in order:
#: ``(text, cursor after)``, in a colour look a :data:`_SharedPiece`). A region drawn
#: from its key alone shows the same rows for the same key on every screen, so the
#: screens that showed the same key before get the same bytes; the second screen to make
#: a change looks the whole region up instead of drawing, styling and diffing its rows.
_TRANSITION_CACHE: dict[tuple[object, ...], tuple[tuple[str, ...], tuple[str, ...] | None,
                                                  tuple[tuple[Any, ...], ...]]] = {}
_TRANSITION_CACHE_SIZE = 4096


def _remember(cache: dict, size: int, key: object, value: object) -> None:
    """Put ``value`` in a bounded shared cache, emptied when full: what the screens reuse
    was mostly put in during the same table step, and dropping the oldest entry instead
    costs every insertion a scan over the deleted ones (a dict is no queue)."""
    if len(cache) >= size:
        cache.clear()
    cache[key] = value


@lru_cache(maxsize=4096)
def _sequence(term: Terminal, capability: str, *args: int) -> str:
    """``term.capability(*args)``, e.g. a cursor address; cached per shared ``term``, since
    blessed parses the capability string on every call."""
    return str(getattr(term, capability)(*args))


#: Positions at which :func:`_cursor_address` checks a template against blessed.
_PROBES = ((0, 0), (HEIGHT - 1, WIDTH - 1), (9, 10), (1, 0), (0, 1))


@lru_cache(maxsize=64)
def _cursor_address(term: Terminal) -> Callable[[int, int], str]:
    """``term.move_yx`` as a function of (row, col) that costs a string format, not a
    parse of the terminfo capability (blessed parses it for every new pair of numbers:
    ~130 us each, which a game start, whose cards land on new cells, would pay several
    times).

    The template is cut from blessed's own output for one position (its row and column
    numbers found in it, as given or one up, as ``cup`` usually counts from 1) and used
    only if it gives blessed's output at five other positions, corners included. A
    capability that does not print its numbers in decimal (a ``%c`` encoding, say) keeps
    blessed, cached per position."""
    row, col = 101, 203  # distinct from each other and from any other number in a template
    probe = str(term.move_yx(row, col))
    for step in (1, 0):
        r, c = str(row + step), str(col + step)
        if probe.count(r) == 1 and probe.count(c) == 1 and probe.index(r) < probe.index(c):
            head, rest = probe.split(r)
            mid, tail = rest.split(c)
            address = _formatted(head, mid, tail, step)
            if all(address(y, x) == str(term.move_yx(y, x)) for y, x in _PROBES):
                return address
    return lambda y, x: _sequence(term, "move_yx", y, x)


def _formatted(head: str, mid: str, tail: str, step: int) -> Callable[[int, int], str]:
    """(row, col) -> ``head`` row+step ``mid`` col+step ``tail``, in decimal."""
    fmt = "{}".join(part.replace("{", "{{").replace("}", "}}") for part in (head, mid, tail)).format
    return lambda row, col: fmt(row + step, col + step)


def _move(term: Terminal, cursor: tuple[int, int] | None, row: int, col: int) -> str:
    """The cheapest way from ``cursor`` (``None``: unknown) to (row, col): nothing, BS,
    or a cursor address."""
    if cursor == (row, col):
        return ""
    if cursor is not None and cursor[0] == row and 0 < cursor[1] - col <= 3:
        return "\b" * (cursor[1] - col)
    return _cursor_address(term)(row, col)


#: A run of changed cells (non-zero bytes of a mask with one byte per cell) and the
#: changed cells after it with fewer than _GAP unchanged ones between: one run.
_RUN = re.compile(rb"[^\x00](?:\x00{0,%d}[^\x00])*" % (_GAP - 1))


def _shared_diff(term: Terminal, row: int, col0: int, old: str,
                 new: str) -> tuple[str, tuple[int, int] | None]:
    """:func:`_diff` from an unknown cursor, made once for every screen that had ``old``
    on the row (:data:`_PIECE_CACHE`): the same bytes for all of them."""
    cache_key = (term, row, col0, old, new)
    cached = _PIECE_CACHE.get(cache_key)
    if cached is None:
        cached = _diff(term, row, col0, old, new, None)
        _remember(_PIECE_CACHE, _PIECE_CACHE_SIZE, cache_key, cached)
    return cached


def _diff(term: Terminal, row: int, col0: int, old: str, new: str,
          cursor: tuple[int, int] | None) -> tuple[str, tuple[int, int] | None]:
    """Cursor moves and text for every run of cells that differ between the ``old`` and
    ``new`` text of screen row ``row`` from column ``col0`` on (both as wide in cells).
    ``cursor``: where the cursor is (``None``: unknown). Returns the text and where it
    leaves the cursor: unknown after non-ASCII text (terminals may disagree on its width)
    and at the right margin (pending wrap).

    A run's first move is a cursor address unless the cursor is on ``row`` already, so
    the bytes of a row's change do not depend on where the cursor was on other rows."""
    if old.isascii() and new.isascii():  # one cell per character: XOR the bytes
        cells: Sequence[str] = new
        changed = (int.from_bytes(old.encode(), "big") ^ int.from_bytes(new.encode(), "big")).to_bytes(len(new), "big")
    else:
        cells = _cells(new)
        changed = bytes(map(ne, _cells(old), cells))
    width = len(cells)
    out: list[str] = []
    # A run never starts on the right half of a wide character: that half only
    # changes together with its left half, which is then in the same run.
    for run in _RUN.finditer(changed):
        first, after = run.span()
        text = cells[first:after] if cells is new else "".join(cells[first:after])
        out.append(_move(term, cursor, row, col0 + first) + text)
        after += after < width and cells[after] == ""
        cursor = (row, col0 + after) if text.isascii() and col0 + after < WIDTH else None
    return "".join(out), cursor


BOX_TO_ASCII_CHARS = tuple(map(chr, BOX_TO_ASCII))
#: Characters every terminal draws one cell wide, as ASCII for :func:`_known_width`: box
#: drawing and the suit glyphs (the session's look puts them in its rows).
_ONE_CELL = {**{c: chr(c) for c in range(128)},          # as itself, without a LookupError each
             **{ord(c): "x" for c in (*BOX_TO_ASCII_CHARS, *SUIT_GLYPHS.values())}}


#: The one-cell glyphs of the screens -> distinct ASCII controls, which no drawn row has
#: (:func:`bbspoker.text.clean_text` keeps none): a row of them and ASCII compares as bytes.
_PROXIES = {**{c: chr(c) for c in range(32, 128)},       # as itself, without a LookupError each
            **{ord(c): chr(n) for c, n in zip(
                "─│┌┐└┘├┤┬┴┼═║╔╗╚╝╟╢╤╧♠♥♦♣", (*range(1, 8), 11, 12, *range(14, 27), 28, 29, 30,
                                               31))}}


@lru_cache(maxsize=8192)
def _proxy(row: str) -> str:
    """``row`` with the screens' box drawing and suits as :data:`_PROXIES`: ASCII when the
    rest of it is (cached: rows come back on every screen)."""
    return row if row.isascii() else row.translate(_PROXIES)


def _known_width(text: str) -> bool:
    """True when the terminal surely advances one cell for each character of ``text``."""
    return text.isascii() or text.translate(_ONE_CELL).isascii()


@lru_cache(maxsize=8192)
def _cells_attrs(row: str, attrs: str | None) -> tuple[Sequence[str], str]:
    """The cells of ``row`` (:func:`_cells`) and one pen mark per cell (``attrs``: one per
    character; ``None``: all the default pen). A wide character's right half takes its
    left half's mark; a combining mark adds none (cached: rows come back on every
    screen; the cells are a tuple, never changed)."""
    if attrs is None:
        attrs = "\x00" * len(row)
    if row.isascii():
        return row, attrs
    if _known_width(row):
        return tuple(row), attrs
    cells: list[str] = []
    marks: list[str] = []
    for ch, mark in zip(row, attrs):
        width = char_width(ch)
        if width == 0:
            cells[-1 if cells[-1] else -2] += ch
            continue
        cells.append(ch)
        marks.append(mark)
        if width == 2:
            cells.append("")
            marks.append(mark)
    return tuple(cells), "".join(marks)


def _diff_colour(term: Terminal, row: int, col0: int, old: str, new: str,
                 old_attrs: str | None, new_attrs: str, cursor: tuple[int, int] | None,
                 pen: int | None) -> tuple[str, tuple[int, int] | None, int | None]:
    """:func:`_diff` for a colour look: cells differ in text or in pen (``old_attrs``,
    ``new_attrs``: one pen mark per character; ``None``: the default pen); each run
    carries the SGR changes between its cells' pens, from the terminal's pen ``pen``.
    Returns the text, where it leaves the cursor and the pen it leaves (``None``: it
    wrote no cell, the pen is as it was).

    ``pen`` ``None``: the pen before is not known yet (a piece made once for many
    screens, :meth:`ScreenRenderer._piece`): the first SGR is then written as
    :data:`_FIRST` and the first cell's mark, for the screen to put its own in."""
    plain_old, plain_new = _proxy(old), _proxy(new)
    if plain_old.isascii() and plain_new.isascii():  # one cell per character: XOR the bytes
        cells: Sequence[str] = new
        marks = new_attrs
        old_marks = old_attrs if old_attrs is not None else "\x00" * len(old)
        n = len(new)
        new_bytes, marks_bytes = plain_new.encode(), marks.encode()
        changed = ((int.from_bytes(plain_old.encode(), "big")
                    ^ int.from_bytes(new_bytes, "big"))
                   | (int.from_bytes(old_marks.encode(), "big")
                      ^ int.from_bytes(marks_bytes, "big"))).to_bytes(n, "big")
        # The marks with each blank in the default pen as _BLANK_MARK, so that one
        # match of _ABSORBING_RUNS takes a pen's cells with the blanks between them.
        runs_of = (int.from_bytes(marks_bytes, "big")
                   | (int.from_bytes(new_bytes.translate(_BLANK_TO_MARK), "big")
                      & int.from_bytes(marks_bytes.translate(_DEFAULT_TO_MARK), "big"))
                   ).to_bytes(n, "big").decode("ascii")
        runs = _ABSORBING_RUNS
    else:
        cells, marks = _cells_attrs(new, new_attrs)
        old_cells, old_marks = _cells_attrs(old, old_attrs)
        changed = bytes(a != b or c != d for a, b, c, d in zip(old_cells, cells, old_marks, marks))
        runs_of, runs = marks, _MARK_RUNS
    width = len(cells)
    out: list[str] = []
    # A slice of a str is its text already; of a tuple of cells, they are joined.
    flat = cells if isinstance(cells, str) else None
    for run in _RUN.finditer(changed):
        first, after = run.span()
        out.append(_move(term, cursor, row, col0 + first))
        text = []
        for m in runs.finditer(runs_of, first, after):
            start, end = m.span()
            mark = ord(runs_of[start])
            if mark == _BLANK_MARK:
                mark = 0
            part = flat[start:end] if flat is not None else "".join(cells[start:end])
            if pen is None:
                text.append(_FIRST + chr(mark))
                pen = mark
            elif not (mark == 0 and pen not in BACKGROUND and not part.strip(" ")):
                text.append(sgr(pen, mark))   # blanks look alike in any pen with no background
                pen = mark
            text.append(part)
        drawn = "".join(text)
        out.append(drawn)
        after += after < width and cells[after] == ""
        # Rows whose proxies are ASCII have a known width (every glyph with a proxy takes
        # one cell); others are checked run by run.
        known = runs is _ABSORBING_RUNS or _known_width("".join(cells[first:after]))
        cursor = (row, col0 + after) if known and col0 + after < WIDTH else None
    return "".join(out), cursor, pen


_MARK_RUNS = re.compile(r"(.)\1*", re.DOTALL)
#: :func:`_diff_colour`'s mark of a blank cell in the default pen (no pen has it).
_BLANK_MARK = 0x7F
_BLANK_TO_MARK = bytes(_BLANK_MARK if b == ord(" ") else 0 for b in range(256))
_DEFAULT_TO_MARK = bytes(_BLANK_MARK if b == 0 else 0 for b in range(256))
_BACKGROUND_CLASS = "".join(re.escape(chr(pen)) for pen in sorted(BACKGROUND))
#: The runs :func:`_diff_colour` writes, over marks with blanks as :data:`_BLANK_MARK`:
#: a pen without a background with the blanks in the default pen inside and after it
#: (unless default-pen text follows them), as the blanks keep the pen before them and
#: cost no SGR, written as the run of marks would be; the default pen's cells (blanks or
#: not); a pen with a background.
_ABSORBING_RUNS = re.compile(
    r"([^\x00\x7f%s])(?:\1|\x7f+(?![\x00\x7f]))*|[\x00\x7f]+|(.)\2*" % _BACKGROUND_CLASS,
    re.DOTALL)
#: Where a piece made for many screens takes its first SGR (:func:`_diff_colour`): no
#: drawn row or escape sequence has this character.
_FIRST = "\x00"

@lru_cache(maxsize=64)
def _scroll(term: Terminal, window_rows: int, lines: int) -> str:
    """Scroll the message area up ``lines`` lines (DECSTBM, then line feeds at its bottom),
    then give the scroll region back to the whole window of ``window_rows`` rows."""
    bottom = _INPUT_ROW - 1
    return (_sequence(term, "csr", _MSG_ROW, bottom) + _cursor_address(term)(bottom, 0)
            + "\r\n" * lines + _sequence(term, "csr", 0, window_rows - 1))


class ScreenRenderer:
    """Turns successive :class:`GameView` values into the bytes one client needs.

    ``ScreenRenderer(term, encoding="utf-8", look=CLASSIC)``: ``term`` is a blessed
    ``Terminal`` of the client's kind (shared by all sessions of that kind;
    only its capability strings are used: ``move_yx``, ``clear``, ``normal``,
    ``save``/``restore``, ``csr``).  ``encoding`` is the session's output
    encoding (e.g. ``"cp437"``): characters it cannot carry are drawn as ``?``
    so widths stay right (an unknown encoding raises ``LookupError``).
    ``look`` (:class:`~bbspoker.door.look.Look`) gives the glyphs (the classic
    look: the mock-up's ``+ - |`` and ``+ * # -``, byte for byte) and colour: in a
    colour look a cell differs when its text or its pen does, and an update sends
    only the SGR changes between the pens of what it writes (the pen is tracked
    through a render, and reset once at its end).

    - :meth:`resize` takes the window size from NAWS (never from ``term``).
    - :meth:`render` returns the escape sequences and text (a ``str`` to be
      encoded by the session) that bring the client's screen from the last
      rendered view to ``view``.  The first call clears and paints all;
      later calls send only changed cells; the cursor is left on the input
      line (after the typed chat text).  Returns ``""`` when nothing changed.
    - :meth:`invalidate` forces a full repaint on the next :meth:`render`
      (after the session wrote something else, or the client may have lost
      the screen).
    """

    def __init__(self, term: Terminal, encoding: str = "utf-8", look: Look = CLASSIC) -> None:
        self.term = term
        self.encoding = codecs.lookup(encoding).name
        self.look = look
        self._colour = look.colour
        self._attrs: list[tuple[str, ...] | None] = [None] * len(_REGIONS)  # pen marks (colour)
        self.cols, self.rows = WIDTH, HEIGHT
        self._painted = False  # False: the client's screen is unknown, the next render paints all
        self._keys: list[object] = [_NOTHING] * len(_REGIONS)  # the key each region shows
        self._rows: list[tuple[str, ...]] = [()] * len(_REGIONS)  # and the text of its rows
        self._input_col = _INPUT_COL  # the input cursor's column
        self._message_count = 0  # GameView.message_count of the shown screen
        self._cursor: tuple[int, int] | None = None
        self._too_small_shown = False

    def resize(self, cols: int, rows: int) -> None:
        """Set the window size reported by NAWS (cells); any change repaints the whole screen."""
        if (cols, rows) != (self.cols, self.rows):
            self.cols, self.rows = cols, rows
            self.invalidate()

    def invalidate(self) -> None:
        """Forget what the client shows: the next :meth:`render` clears and paints everything."""
        self._painted = False
        self._cursor = None
        self._too_small_shown = False

    def render(self, view: GameView) -> str:
        """Sequences bringing the screen to ``view``; see the class docstring.

        A window smaller than 80x24 gets (once per size) a cleared screen with
        "Please enlarge your window to at least 80x24 (now WxH)"; the game
        screen is painted in full when the window is large enough again.

        Each changed row of a region whose fields changed is brought up to date from
        its own cursor address; for a region shared by the screens at the table (e.g.
        the pot after a bet, an opponent's revealed cards) those bytes are made once
        and reused by the other screens.
        """
        term = self.term
        if self.cols < WIDTH or self.rows < HEIGHT:
            if self._too_small_shown:
                return ""
            self.invalidate()
            self._too_small_shown = True
            return (
                term.normal
                + term.clear
                + term.move_yx(0, 0)
                + translator(view.lang).gettext(
                    "Please enlarge your window to at least {width}x{height} (now {cols}x{rows})"
                ).format(width=WIDTH, height=HEIGHT, cols=self.cols, rows=self.rows)
            )
        before = self._cursor
        body = self._paint_all(view) if not self._painted else self._update(view)
        return self._back_to_input(body, before)

    def _back_to_input(self, body: str, before: tuple[int, int] | None) -> str:
        """``body`` and the cursor's way back to the input row; when it was there before
        (``before``) and save/restore is shorter than that way, ``body`` between them."""
        term = self.term
        target = (_INPUT_ROW, self._input_col)
        back = _move(term, self._cursor, *target)
        self._cursor = target
        if back and before == target and term.save and term.restore \
                and len(term.save + term.restore) < len(back):
            return term.save + body + term.restore
        return body + back

    def render_clock(self, clock: str | None) -> str | None:
        """The bytes that bring only the status line's clock to ``clock`` (``"0:59"``, or
        None for none), the rest of the screen as last rendered: the clock's tick once a
        second needs no :class:`GameView`. ``None`` when :meth:`render` is
        needed instead (nothing painted yet, or a window too small)."""
        if not self._painted or self.cols < WIDTH or self.rows < HEIGHT:
            return None
        if self._keys[_CLOCK] == clock:       # the clock region's key is the clock text
            return ""
        term = self.term
        before = self._cursor
        old = self._rows[_CLOCK]
        old_attrs = self._attrs[_CLOCK]
        drawn = _CLOCK_CACHE.get((self.encoding, clock))
        if drawn is None:
            drawn = _draw_clock(_ClockOnly(clock), self.encoding)  # type: ignore[arg-type]
            _remember(_CLOCK_CACHE, 256, (self.encoding, clock), drawn)
        self._keys[_CLOCK] = clock
        self._rows[_CLOCK] = rows = tuple(map(self.look.glyphs, drawn))
        region = _REGIONS[_CLOCK]
        body = ""
        if self._colour:
            attrs = (blanks(drawn[0], _clock_attrs(clock, drawn[0])),)
            self._attrs[_CLOCK] = attrs
            if old[0] != rows[0] or old_attrs is None or old_attrs[0] != attrs[0]:
                body, self._cursor, pen = self._piece(region.rows[0], region.cols.start, old[0],
                                                      rows[0], old_attrs[0] if old_attrs else None,
                                                      attrs[0], 0)
                body += sgr(pen, 0)
        elif old[0] != rows[0]:
            cache_key = (term, region.rows[0], region.cols.start, old[0], rows[0])
            cached = _PIECE_CACHE.get(cache_key)
            if cached is None:
                cached = _diff(term, region.rows[0], region.cols.start, old[0], rows[0], None)
                _remember(_PIECE_CACHE, _PIECE_CACHE_SIZE, cache_key, cached)
            body, self._cursor = cached
        return self._back_to_input(body, before)

    def _piece(self, row: int, col0: int, old: str, new: str, old_attrs: str | None,
               new_attrs: str, pen: int) -> tuple[str, tuple[int, int] | None, int]:
        """:func:`_diff_colour` of one row of a shared region from an unknown cursor, made
        once for every screen that had the same row in the same pens before; the first SGR
        is this screen's own, from its pen ``pen``."""
        head, first, tail, cursor, after = _shared_piece(self.term, row, col0, old, new,
                                                         old_attrs, new_attrs)
        if after is None:
            return head, cursor, pen
        return head + sgr(pen, first) + tail, cursor, after

    def _paint_all(self, view: GameView) -> str:
        """Clear the screen and draw every region of ``view``."""
        screen = [self.look.glyphs(row) for row in _FRAME]
        marks = [blanks(row, attrs_of(row)) for row in _FRAME]
        for i in _RIGHT_TO_LEFT:
            cols = _REGIONS[i].cols
            self._set(i, _REGIONS[i].key(view), view)
            for row, text in zip(_REGIONS[i].rows, self._rows[i]):
                screen[row] = screen[row][: cols.start] + text + screen[row][cols.stop :]
            attrs = self._attrs[i]
            if attrs is not None:
                for row, mark in zip(_REGIONS[i].rows, attrs):
                    marks[row] = marks[row][: cols.start] + mark + marks[row][cols.stop :]
        self._message_count = view.message_count
        self._painted = True
        out, cursor = [self.term.normal + self.term.clear], None
        if self._colour:
            pen = 0
            for row, (text, mark) in enumerate(zip(screen, marks)):
                piece, cursor, after = _diff_colour(self.term, row, 0, _BLANK_LINE, text, None,
                                                    mark, cursor, pen)
                pen = pen if after is None else after
                out.append(piece)
            out.append(sgr(pen, 0))
        else:
            for row, text in enumerate(screen):
                piece, cursor = _diff(self.term, row, 0, _BLANK_LINE, text, cursor)
                out.append(piece)
        self._cursor = cursor
        return "".join(out)

    def _set(self, index: int, key: object, view: GameView) -> None:
        """Remember that region ``index`` shows ``key`` (of ``view``), and its rows."""
        self._keys[index] = key
        region = _REGIONS[index]
        if self._colour and region.lines is not None:
            self._rows[index], self._attrs[index] = region.lines(view, self.encoding, self.look)
            return
        cached = region.shared and not region.per_screen
        drawn = (_region_rows(index, self.encoding, key, view) if cached
                 else region.draw(view, self.encoding))
        self._rows[index] = tuple(map(self.look.glyphs, drawn))
        if self._colour:
            attrs = (_region_attrs(index, self.encoding, key, view, drawn) if cached
                     else region.style(view, drawn))
            self._attrs[index] = tuple(map(blanks, drawn, attrs))
        if index == _INPUT:
            self._input_col = _INPUT_COL + display_width(_typed(view))

    def _transition(self, index: int, key: object, view: GameView, lines: int
                    ) -> tuple[tuple[str, ...], tuple[str, ...] | None, tuple[tuple[Any, ...], ...]]:
        """The change of the shared region ``index`` from what this screen shows to ``key``
        (of ``view``), its rows first scrolled ``lines`` up by the terminal: the new rows,
        their pen marks (``None`` in the classic look) and the pieces of the changed rows,
        each from an unknown cursor (and in colour an unknown pen), for
        :data:`_TRANSITION_CACHE`. Sets the region's key, rows and marks."""
        region = _REGIONS[index]
        term = self.term
        old_rows = self._rows[index]
        old_attrs = self._attrs[index] or (None,) * len(old_rows)
        self._set(index, key, view)
        rows, attrs = self._rows[index], self._attrs[index]
        if lines:
            old_rows = (*old_rows[lines:], *[_BLANK_LINE] * lines)
            old_attrs = (*old_attrs[lines:], *[None] * lines)
        col0 = region.cols.start
        pieces: list[tuple[Any, ...]] = []
        if attrs is None:
            for row, old, new in zip(region.rows, old_rows, rows):
                if old is new or old == new:
                    continue
                pieces.append(_shared_diff(term, row, col0, old, new))
        else:
            for row, old, new, old_mark, mark in zip(region.rows, old_rows, rows, old_attrs,
                                                     attrs):
                if (old is new or old == new) and old_mark == mark:
                    continue
                pieces.append(_shared_piece(term, row, col0, old, new, old_mark, mark))
        return rows, attrs, tuple(pieces)

    def _update(self, view: GameView) -> str:
        """The bytes of every changed row of the regions whose fields changed since the last
        render."""
        if self._colour:
            return self._update_colour(view)
        out: list[str] = []
        term = self.term
        keys, rows = self._keys, self._rows
        new_messages, self._message_count = view.message_count - self._message_count, view.message_count
        for i, region in _INDEXED:
            old_key, key = keys[i], region.key(view)
            lines = self._scrolled(old_key, new_messages) if i == _MESSAGES and new_messages else 0
            if not lines and (key is old_key or key == old_key):
                continue
            if lines:  # the terminal moves the kept lines: they are compared where they went
                out.append(_scroll(term, self.rows, lines))
                self._cursor = None
            if region.shared and not region.per_screen:
                memo = (i, term, self.encoding, self.look, old_key, key, lines)
                change = _TRANSITION_CACHE.get(memo)
                if change is None:
                    change = self._transition(i, key, view, lines)
                    _remember(_TRANSITION_CACHE, _TRANSITION_CACHE_SIZE, memo, change)
                keys[i], rows[i] = key, change[0]
                for made in change[2]:
                    out.append(made[0])
                    self._cursor = made[1]
                continue
            old_rows = rows[i]
            self._set(i, key, view)
            if lines:
                old_rows = (*old_rows[lines:], *[_BLANK_LINE] * lines)
            col0 = region.cols.start
            shared = region.shared
            for row, old, new in zip(region.rows, old_rows, rows[i]):
                if old is new or old == new:
                    continue
                if not shared:
                    piece, self._cursor = _diff(term, row, col0, old, new, self._cursor)
                    out.append(piece)
                    continue
                # From an unknown cursor (the first move is an address): the same bytes
                # for every screen that had ``old`` on this row.
                cached = _shared_diff(term, row, col0, old, new)
                out.append(cached[0])
                self._cursor = cached[1]
        return "".join(out)

    def _update_colour(self, view: GameView) -> str:
        """:meth:`_update` for a colour look: rows differ in text or in pens, and the
        terminal's pen is carried from piece to piece (reset before a scroll, which
        fills new lines with the pen's background, and once at the end)."""
        out: list[str] = []
        term = self.term
        keys, rows, all_attrs = self._keys, self._rows, self._attrs
        new_messages, self._message_count = view.message_count - self._message_count, view.message_count
        pen = 0
        for i, region in _INDEXED:
            old_key, key = keys[i], region.key(view)
            lines = self._scrolled(old_key, new_messages) if i == _MESSAGES and new_messages else 0
            if not lines and (key is old_key or key == old_key):
                continue
            if lines:  # the terminal moves the kept lines: they are compared where they went
                out.append(sgr(pen, 0) + _scroll(term, self.rows, lines))
                pen = 0
                self._cursor = None
            if region.shared and not region.per_screen and all_attrs[i] is not None:
                memo = (i, term, self.encoding, self.look, old_key, key, lines)
                change = _TRANSITION_CACHE.get(memo)
                if change is None:
                    change = self._transition(i, key, view, lines)
                    _remember(_TRANSITION_CACHE, _TRANSITION_CACHE_SIZE, memo, change)
                keys[i], rows[i], all_attrs[i] = key, change[0], change[1]
                for head, first, tail, self._cursor, after in change[2]:
                    out.append(head)
                    if after is not None:       # the first SGR from this screen's pen
                        out.append(sgr(pen, first))
                        out.append(tail)
                        pen = after
                continue
            old_rows, old_attrs = rows[i], all_attrs[i] or (None,) * len(rows[i])
            self._set(i, key, view)
            new_attrs = all_attrs[i]
            assert new_attrs is not None
            if lines:
                old_rows = (*old_rows[lines:], *[_BLANK_LINE] * lines)
                old_attrs = (*old_attrs[lines:], *[None] * lines)
            col0 = region.cols.start
            for row, old, new, old_mark, mark in zip(region.rows, old_rows, rows[i], old_attrs,
                                                     new_attrs):
                if (old is new or old == new) and old_mark == mark:
                    continue
                if region.shared:
                    piece, self._cursor, pen = self._piece(row, col0, old, new, old_mark, mark, pen)
                else:
                    piece, self._cursor, after = _diff_colour(term, row, col0, old, new, old_mark,
                                                              mark, self._cursor, pen)
                    pen = pen if after is None else after
                out.append(piece)
        out.append(sgr(pen, 0))
        return "".join(out)

    def _scrolled(self, old_key: object, new_messages: int) -> int:
        """Lines the message area scrolls for ``new_messages`` more messages when it showed
        ``old_key``: 0 when it is not full yet, would scroll every line it shows (a
        rewrite is as cheap), or the terminal has no scroll region.

        Messages fill rows 14-23 from the top; once the area is full, each new
        message scrolls it up one line (by the count, so identical messages scroll too).
        """
        used = len(old_key)  # type: ignore[arg-type]
        lines = used + new_messages - MESSAGE_ROWS
        if new_messages <= 0 or not 0 < lines < used or not _sequence(self.term, "csr", 0, 1):
            return 0
        return lines
