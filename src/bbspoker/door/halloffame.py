"""The hall of fame: the top ten players by net CUBES won, as the lobby's [S] shows it and
as ``bbspoker bulletin`` writes it for a BBS to show at logon; and the tournament
standings of a season (the top ten by league points, :mod:`bbspoker.rules.seasons`) in
the same forms (``bbspoker bulletin --tournaments``, the hall of fame's [T]).

The figures are the store's (:meth:`bbspoker.store.sql.Ledger.results`, the one way
results are counted: the same as a player's own [S] table); this module ranks them and
draws the table in three forms of one layout: lines for the lobby (:func:`table_lines`),
an 80x24 CP437 ANSI screen with a SAUCE record (:func:`ansi_bulletin`), plain ASCII
(:func:`ascii_bulletin`), and JSON for a web page (:func:`json_bulletin`).

The standings' figures are the store's too
(:meth:`bbspoker.store.tournaments.TournamentBook.tournament_standings`, ranked there);
:func:`season_at` finds the season of a moment in the server's local time.

A player's BBS is read from the handle alone (:func:`bbs_of`): a BBS's caller plays as
``alias@TAG``; a handle without such a tag came to the server directly.
"""

from __future__ import annotations

import json
import struct
import time
import unicodedata
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Callable, Iterable, Mapping, Sequence

from bbspoker.door.i18n import ENGLISH, N_, NP_, Translator
from bbspoker.door.screens.kinds import game_title
from bbspoker.rules.seasons import Season, season_of
from bbspoker.store.sql import PlayerStats, handle_key
from bbspoker.store.tournaments import Standing
from bbspoker.text import display_width, fit

__all__ = ["PERIODS", "HallEntry", "bbs_of", "alias_of", "rank", "period_text", "title_text",
           "table_lines", "ansi_bulletin", "ascii_bulletin", "json_bulletin", "sauce",
           "TOP", "DIRECT", "SEASONS", "SeasonEntry", "season_at", "season_bounds",
           "season_text", "standings_title", "rank_standings", "standings_lines",
           "player_lines", "ansi_standings", "ascii_standings", "json_standings"]

#: Players a hall of fame shows.
TOP = 10
#: The periods (``--period``) and how far back each reaches, in seconds (``None``: all
#: games ever). Rolling windows by the game's end time: a week is the last 7 days, a
#: month the last 30, whatever the calendar says (the same length every day, and no time
#: zone decides who is in).
PERIODS: dict[str, float | None] = {"week": 7 * 86400.0, "month": 30 * 86400.0, "all": None}
#: What the BBS column shows for a player who came to the server directly.
DIRECT = "-"

#: A column: its heading (``None``: ``#``), its cells, right-aligned or not, and the role
#: of its texts on the bulletin (``rank``, ``name``, ``bbs``, ``number``, ``net``: a
#: signed number, green or red). A heading is cut to one cell less than its column.
_Column = tuple[tuple[str, str] | None, int, bool, str]
#: The hall of fame's columns; their cells add up to :data:`TABLE_WIDTH`.
_COLUMNS: tuple[_Column, ...] = (
    (None, 5, True, "rank"), (NP_("hall of fame heading", "PLAYER"), 18, False, "name"),
    (NP_("hall of fame heading", "BBS"), 10, False, "bbs"),
    (NP_("stats heading", "NET"), 12, True, "net"),
    (NP_("stats heading", "PLAYED"), 9, True, "number"),
    (NP_("stats heading", "WON"), 8, True, "number"),
    (NP_("stats heading", "BIGGEST POT"), 13, True, "number"))
#: The tournament standings' columns, as wide in all.
_SEASON_COLUMNS: tuple[_Column, ...] = (
    (None, 5, True, "rank"), (NP_("hall of fame heading", "PLAYER"), 18, False, "name"),
    (NP_("hall of fame heading", "BBS"), 10, False, "bbs"),
    (NP_("standings heading", "POINTS"), 8, True, "number"),
    (NP_("stats heading", "PLAYED"), 8, True, "number"),
    (NP_("stats heading", "WON"), 7, True, "number"),
    (NP_("standings heading", "CASHES"), 8, True, "number"),
    (NP_("stats heading", "NET"), 11, True, "net"))
#: Cells of a line of :func:`table_lines` and :func:`standings_lines`.
TABLE_WIDTH = sum(cells for _, cells, _, _ in _COLUMNS)
#: Columns of the bulletin's box, frame included: 79, so that no line reaches the 80th
#: column and no terminal wraps it (the lobby's own rule for an 80-column screen).
BOX_WIDTH = 79

_NO_GAMES = N_("No finished games in this period yet.")
_NO_TOURNAMENTS = N_("No finished tournaments in this season yet.")


def bbs_of(handle: str) -> str | None:
    """The tag of the BBS a player came from: the part of ``handle`` after its last
    ``@`` when that is 2 to 8 ASCII letters or digits (``"bob@EN"`` -> ``"EN"``, as the
    RLOGIN door names a BBS's caller); ``None`` for a player who came directly (no such
    tag: ``"alice"``, ``"odd@"``)."""
    _, at, tag = handle.rpartition("@")
    if at and 2 <= len(tag) <= 8 and tag.isascii() and tag.isalnum():
        return tag
    return None


def alias_of(handle: str) -> str:
    """``handle`` without its ``@TAG`` (:func:`bbs_of`): the name the caller has on their
    BBS; the handle itself for a player who came directly."""
    return handle.rpartition("@")[0] if bbs_of(handle) is not None else handle


@dataclass(frozen=True)
class HallEntry:
    """One place of the hall of fame: ``rank`` (1 = best), the ``handle``, its ``alias``
    and ``bbs`` tag (:func:`bbs_of`; ``None``: came directly), ``net`` CUBES (won less
    paid in), ``cubes_won``, ``cubes_paid``, finished ``games`` played and ``won``, and
    the ``biggest_pot`` won (CUBES)."""

    rank: int
    handle: str
    alias: str
    bbs: str | None
    net: int
    cubes_won: int
    cubes_paid: int
    games: int
    won: int
    biggest_pot: int


def rank(results: Iterable[tuple[str, PlayerStats]], kinds: Mapping[str, str],
         game: str | None = None, bbs: str | None = None, top: int = TOP) -> list[HallEntry]:
    """The ``top`` players of ``results`` (``(handle, PlayerStats)`` per table, as the
    store gives them), best first.

    A player's figures are the sums over the tables counted: every table, or with
    ``game`` only those whose kind (``kinds``: table id -> game kind, from the config) is
    ``game``; with ``bbs`` only the players of that BBS tag (any case). Ranked by net
    CUBES won, then games won, then the biggest pot, then the handle (case-folded);
    a player with no game counted is not ranked."""
    totals: dict[str, list[int]] = {}
    for handle, stats in results:
        if game is not None and kinds.get(stats.table) != game:
            continue
        if bbs is not None and (bbs_of(handle) or "").casefold() != bbs.casefold():
            continue
        sums = totals.setdefault(handle, [0, 0, 0, 0, 0])
        sums[0] += stats.cubes_won
        sums[1] += stats.cubes_paid
        sums[2] += stats.played
        sums[3] += stats.won
        sums[4] = max(sums[4], stats.biggest_pot)
    ordered = sorted(((h, s) for h, s in totals.items() if s[2] or s[3]),
                     key=lambda item: (-(item[1][0] - item[1][1]), -item[1][3],
                                       -item[1][4], handle_key(item[0])))
    return [HallEntry(place, handle, alias_of(handle), bbs_of(handle), won - paid, won, paid,
                      played, wins, biggest)
            for place, (handle, (won, paid, played, wins, biggest))
            in enumerate(ordered[:top], 1)]


def period_text(period: str, t: Translator = ENGLISH) -> str:
    """A period of :data:`PERIODS` in words: ``"last 7 days"``, ``"all time"``."""
    seconds = PERIODS[period]
    if seconds is None:
        return t.gettext("all time")
    days = round(seconds / 86400)
    return t.ngettext("last {n} day", "last {n} days", days).format(n=t.number(days))


def title_text(game: str | None, period: str, t: Translator = ENGLISH) -> str:
    """The line above a hall of fame: ``"Hall of fame: 40-card draw, last 7 days"``."""
    what = game_title(game, t) if game is not None else t.gettext("all games")
    return t.gettext("Hall of fame: {game}, {period}").format(game=what,
                                                              period=period_text(period, t))


def _signed(n: int, t: Translator) -> str:
    """``n`` CUBES with its sign (``+310``, ``-70``, ``0``) in ``t``'s digits."""
    return ("+" if n > 0 else "-" if n < 0 else "") + t.number(abs(n))


def _cells(entry: HallEntry, t: Translator, fold: Callable[[str], str]) -> list[str]:
    """The texts of ``entry``'s columns (not yet aligned), names through ``fold``."""
    n = t.number
    return [f"{entry.rank}.", fold(entry.alias), fold(entry.bbs or DIRECT),
            fold(_signed(entry.net, t)), fold(n(entry.games)), fold(n(entry.won)),
            fold(n(entry.biggest_pot))]


def _aligned(texts: Sequence[str], columns: Sequence[_Column] = _COLUMNS) -> list[str]:
    """``texts`` (one per column) cut and padded to their columns, each followed by one
    blank: a name is cut to fit, a number is right-aligned and never cut."""
    out = []
    for text, (_, cells, right, _) in zip(texts, columns):
        if right:
            out.append(" " * max(cells - 1 - display_width(text), 0) + text + " ")
        else:
            out.append(fit(text, cells - 1) + " ")
    return out


def _header(t: Translator, fold: Callable[[str], str],
            columns: Sequence[_Column] = _COLUMNS) -> list[str]:
    """The column headings in ``t``'s language, each aligned as its column."""
    texts = ["#" if heading is None else fold(t.pgettext(*heading))
             for heading, _, _, _ in columns]
    out = []
    for text, (_, cells, right, _) in zip(texts, columns):
        text = fit(text, cells - 1).rstrip()
        pad = " " * (cells - 1 - display_width(text))
        out.append((pad + text if right else text + pad) + " ")
    return out


def table_lines(entries: Sequence[HallEntry], t: Translator = ENGLISH) -> list[str]:
    """The hall of fame as lines of at most :data:`TABLE_WIDTH` (75) cells in ``t``'s
    language: the column headings, then one line a place (rank, the player's alias, BBS
    tag or :data:`DIRECT`, net CUBES with its sign, games played and won, the biggest
    pot), or one line saying no game ended in the period."""
    header = "".join(_header(t, str)).rstrip()
    if not entries:
        return [header, t.gettext(_NO_GAMES)]
    return [header] + ["".join(_aligned(_cells(e, t, str))).rstrip() for e in entries]


# ------------------------------------------------------------------ the season's tournaments

#: The seasons a standings table may show (``--season``): the one under way, the one
#: before it, all time.
SEASONS = ("current", "previous", "all")


def season_at(which: str, length: str, now: float) -> Season | None:
    """The season ``which`` (:data:`SEASONS`) of ``length`` (``[seasons] length``) at
    ``now`` (Unix seconds) in the server's local time; ``None`` for ``"all"``."""
    if which == "all":
        return None
    season = season_of(datetime.fromtimestamp(now).date(), length)
    return season.previous() if which == "previous" else season


def season_bounds(season: Season | None) -> tuple[float | None, float | None]:
    """``(since, until)`` in Unix seconds for the store's standings: the season's local
    midnights, or ``(None, None)`` for all time."""
    return (None, None) if season is None else season.bounds()


def season_text(season: Season | None, t: Translator = ENGLISH) -> str:
    """A season in words: ``"season 2026-11"``, ``"all time"``."""
    if season is None:
        return t.gettext("all time")
    return t.gettext("season {season}").format(season=season.label)


def standings_title(season: Season | None, t: Translator = ENGLISH) -> str:
    """The line above a standings table: ``"Tournaments: season 2026-11"``."""
    return t.gettext("Tournaments: {season}").format(season=season_text(season, t))


@dataclass(frozen=True)
class SeasonEntry:
    """One place of the tournament standings: ``rank`` (1 = best), the ``handle``, its
    ``alias`` and ``bbs`` tag (:func:`bbs_of`), league ``points``, tournaments ``played``,
    ``wins``, ``cashes`` (a prize won) and ``net`` CUBES (prizes less buy-ins)."""

    rank: int
    handle: str
    alias: str
    bbs: str | None
    points: int
    played: int
    wins: int
    cashes: int
    net: int


def rank_standings(standings: Iterable[Standing], bbs: str | None = None,
                   top: int = TOP) -> list[SeasonEntry]:
    """The first ``top`` of ``standings`` (ranked already, best first, as the store gives
    them), with ``bbs`` only the players of that BBS tag (any case), numbered from 1."""
    chosen = [s for s in standings
              if bbs is None or (bbs_of(s.handle) or "").casefold() == bbs.casefold()]
    return [SeasonEntry(place, s.handle, alias_of(s.handle), bbs_of(s.handle), s.points,
                        s.played, s.wins, s.cashes, s.net)
            for place, s in enumerate(chosen[:top], 1)]


def _season_cells(entry: SeasonEntry, t: Translator) -> list[str]:
    n = t.number
    return [f"{entry.rank}.", entry.alias, entry.bbs or DIRECT, n(entry.points),
            n(entry.played), n(entry.wins), n(entry.cashes), _signed(entry.net, t)]


def standings_lines(entries: Sequence[SeasonEntry], t: Translator = ENGLISH) -> list[str]:
    """The tournament standings as lines of at most :data:`TABLE_WIDTH` cells in ``t``'s
    language, as :func:`table_lines` draws the hall of fame: the headings, then a line a
    place (rank, alias, BBS, points, played, won, cashes, net CUBES), or one line saying
    no tournament finished in the season."""
    header = "".join(_header(t, str, _SEASON_COLUMNS)).rstrip()
    if not entries:
        return [header, t.gettext(_NO_TOURNAMENTS)]
    return [header] + ["".join(_aligned(_season_cells(e, t), _SEASON_COLUMNS)).rstrip()
                       for e in entries]


#: A player's own tournament lines: the row's label, then the figures.
_OWN_COLUMNS: tuple[_Column, ...] = (
    (NP_("standings heading", "TOURNAMENTS"), 20, False, "name"),
    (NP_("standings heading", "RANK"), 6, True, "number"),
    (NP_("standings heading", "POINTS"), 8, True, "number"),
    (NP_("stats heading", "PLAYED"), 8, True, "number"),
    (NP_("stats heading", "WON"), 7, True, "number"),
    (NP_("standings heading", "CASHES"), 8, True, "number"),
    (NP_("stats heading", "NET"), 11, True, "net"))


def player_lines(handle: str, season: Season | None,
                 standings: Mapping[Season | None, Sequence[Standing]],
                 t: Translator = ENGLISH) -> list[str]:
    """``handle``'s tournament results as lines of at most 68 cells: the headings, then
    one line for ``season`` (the season under way) and one for all time (``standings``
    maps each, ``None`` for all time, to the store's standings): the rank among everyone
    (``-`` without a finished tournament), points, played, won, cashes, net CUBES. One
    line saying so when ``handle`` never finished a tournament."""
    key = handle_key(handle)
    rows = []
    for which in (season, None):
        ranked = list(standings.get(which, ()))
        place = next((n for n, s in enumerate(ranked, 1) if handle_key(s.handle) == key), 0)
        mine = ranked[place - 1] if place else Standing(handle, 0, 0, 0, 0, 0)
        n = t.number
        rows.append((place, mine, [season_text(which, t), n(place) if place else "-",
                                   n(mine.points), n(mine.played), n(mine.wins),
                                   n(mine.cashes), _signed(mine.net, t)]))
    if not rows[-1][0]:
        return [t.gettext("Tournaments: none finished yet.")]
    header = "".join(_header(t, str, _OWN_COLUMNS)).rstrip()
    return [header] + ["".join(_aligned(cells, _OWN_COLUMNS)).rstrip()
                       for _, _, cells in rows]


# ------------------------------------------------------------------ the bulletin files


def cp437_text(text: str) -> str:
    """``text`` as a CP437 screen can show it: compatibility forms made plain (NFKC:
    full-width letters, no-break spaces), then each character CP437 lacks as ``?``."""
    return unicodedata.normalize("NFKC", text).encode("cp437", "replace").decode("cp437")


def ascii_text(text: str) -> str:
    """``text`` in plain ASCII: accents dropped (``zoë`` -> ``zoe``), compatibility forms
    made plain, any other character ``?``."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return plain.encode("ascii", "replace").decode("ascii")


@dataclass(frozen=True)
class _Frame:
    """The characters and colours of one bulletin form."""

    top: tuple[str, str, str]          # left corner, line, right corner
    rule: tuple[str, str, str]         # the double rule under the title
    thin: tuple[str, str, str]         # the single rule under the headings
    bottom: tuple[str, str, str]
    side: str
    colour: Callable[[str], str]       # a role's SGR sequence ("" without colours)


_SGR = {"frame": "\x1b[0;1;36m", "title": "\x1b[0;1;33m", "subtitle": "\x1b[0;36m",
        "heading": "\x1b[0;1;37m", "first": "\x1b[0;1;33m", "second": "\x1b[0;1;37m",
        "third": "\x1b[0;33m", "rank": "\x1b[0;37m", "name": "\x1b[0;1;37m",
        "bbs": "\x1b[0;1;35m", "plus": "\x1b[0;1;32m", "minus": "\x1b[0;1;31m",
        "number": "\x1b[0;37m", "footer": "\x1b[0;36m", "reset": "\x1b[0m"}
_ANSI = _Frame(("╔", "═", "╗"), ("╠", "═", "╣"), ("╟", "─", "╢"), ("╚", "═", "╝"), "║",
               lambda role: _SGR[role])
_ASCII = _Frame(("+", "=", "+"), ("+", "=", "+"), ("+", "-", "+"), ("+", "=", "+"), "|",
                lambda role: "")


@dataclass(frozen=True)
class _Board:
    """What a bulletin screen shows, in the reader's language: the ``heading`` (upper
    case in the box's first row) and ``subtitle``, the ``columns``, one row of texts (not
    yet aligned, names not yet folded) a place with its rank (1 = best, whose colour is
    gold) and its ``net`` sign for the ``net`` column, the text for ``empty`` (no place
    at all), and the ``footer`` above the box's bottom."""

    heading: str
    subtitle: str
    columns: tuple[_Column, ...]
    rows: list[tuple[int, int, list[str]]]          # (rank, net CUBES, cells)
    empty: str
    footer: str


def _screen(board: _Board, frame: _Frame, fold: Callable[[str], str],
            server: str, t: Translator) -> list[str]:
    """A bulletin's lines (no line ends): a box of :data:`BOX_WIDTH` columns, 19 rows
    (the hall of fame and the tournament standings alike)."""
    c = frame.colour
    inner = BOX_WIDTH - 2
    side = c("frame") + frame.side

    def rule(parts: tuple[str, str, str]) -> str:
        return c("frame") + parts[0] + parts[1] * inner + parts[2]

    def row(*pieces: tuple[str, str]) -> str:
        """A boxed row of (role, text) pieces, padded to the box; pieces too wide for it
        together (numbers of many digits) are cut to fit, in the colour of the last."""
        used = sum(display_width(text) for _, text in pieces)
        if used > inner:
            pieces = ((pieces[-1][0], fit("".join(text for _, text in pieces), inner)),)
            used = inner
        merged: list[tuple[str, str]] = []          # a colour once for its neighbours
        for role, text in pieces:
            if merged and merged[-1][0] == role:
                merged[-1] = (role, merged[-1][1] + text)
            else:
                merged.append((role, text))
        body = "".join(c(role) + text for role, text in merged)
        return side + body + " " * max(inner - used, 0) + side

    def centred(role: str, text: str) -> str:
        text = fit(fold(text), inner).strip()
        left = (inner - display_width(text)) // 2
        return row((role, " " * left + text))

    rows = [rule(frame.top),
            centred("title", f"{server}  *  {board.heading.upper()}"),
            centred("subtitle", board.subtitle),
            rule(frame.rule),
            row(("heading", " " + "".join(_header(t, fold, board.columns)))),
            rule(frame.thin)]
    places = {1: "first", 2: "second", 3: "third"}
    for place in range(TOP):
        if place >= len(board.rows):
            text = fold(board.empty) if place == 0 and not board.rows else ""
            rows.append(row(("number", "  " + text)))
            continue
        rank_, net, texts = board.rows[place]
        cells = _aligned([fold(text) for text in texts], board.columns)
        pieces = [("rank", " ")]
        for cell, (_, _, _, role) in zip(cells, board.columns):
            if role == "rank":
                role = places.get(rank_, "rank")
            elif role == "net":
                role = "plus" if net > 0 else "minus" if net < 0 else "number"
            pieces.append((role, cell))
        rows.append(row(*pieces))
    rows += [rule(frame.thin),
             row(("footer", " " + fit(fold(board.footer), inner - 1))),
             rule(frame.bottom) + c("reset")]
    return rows


def _systems(bbs: str | None, t: Translator) -> str:
    """Whose places a bulletin shows: ``"players of EN"`` or ``"all systems"``."""
    return t.gettext("players of {bbs}").format(bbs=bbs) if bbs else t.gettext("all systems")


def _stamp(now: float) -> str:
    """``now`` (Unix seconds) as the local ``YYYY-MM-DD HH:MM`` a bulletin was made."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(now))


def _hall_board(entries: Sequence[HallEntry], game: str | None, period: str,
                bbs: str | None, now: float, t: Translator) -> _Board:
    """The hall of fame's :class:`_Board`."""
    what = game_title(game, t) if game is not None else t.gettext("all games")
    return _Board(t.gettext("Hall of fame"),
                  f"{what} - {period_text(period, t)} - {_systems(bbs, t)}", _COLUMNS,
                  [(e.rank, e.net, _cells(e, t, str)) for e in entries],
                  t.gettext(_NO_GAMES),
                  t.gettext("Net: CUBES won less CUBES paid in. As of {when}.").format(
                      when=_stamp(now)))


def _ansi_file(lines: list[str], title: str, now: float) -> bytes:
    """The CP437 bytes of an ANSI bulletin of ``lines``: the screen cleared first, a
    colour reset and CR LF at the end, then a SAUCE record titled ``PoKeR <title>``."""
    text = "\x1b[0m\x1b[2J\x1b[H" + "".join(line + "\r\n" for line in lines)
    content = text.encode("cp437", "replace")
    return content + sauce(f"PoKeR {title.upper()}", len(lines), len(content), now)


def sauce(title: str, lines: int, size: int, when: float, author: str = "bbspoker") -> bytes:
    """The SAUCE00 record of an 80-column CP437 ANSI file: the EOF mark (0x1A) and the
    128 bytes after it. ``title`` (35 bytes), ``author`` (20) as CP437 padded with
    blanks, the date ``when`` (Unix seconds) as local ``CCYYMMDD``, ``size`` the bytes of
    the file before the EOF mark, data type 1 (character), file type 1 (ANSi), width 80,
    ``lines`` rows, no comments, no flags (classic 16-colour blink, not iCE colours), the
    font ``IBM VGA``."""
    def field(text: str, n: int) -> bytes:
        return cp437_text(text).encode("cp437")[:n].ljust(n, b" ")

    record = struct.pack("<5s2s35s20s20s8sIBBHHHHBB22s", b"SAUCE", b"00", field(title, 35),
                         field(author, 20), field("", 20),
                         time.strftime("%Y%m%d", time.localtime(when)).encode("ascii"),
                         size, 1, 1, 80, lines, 0, 0, 0, 0, b"IBM VGA")
    return b"\x1a" + record


def ansi_bulletin(entries: Sequence[HallEntry], *, game: str | None, period: str,
                  bbs: str | None, now: float, t: Translator = ENGLISH,
                  server: str = "Global Village BBS PoKeR") -> bytes:
    """The hall of fame as a BBS's logon bulletin: CP437 bytes of an ANSI screen (the
    16 ANSI colours, double-line box drawing, 79 columns so that no terminal wraps a
    line, 19 rows: it fits 80x24), clearing the screen first and ending with a colour
    reset and CR LF, then a SAUCE record (:func:`sauce`). ``now``: Unix seconds, the
    time it shows it was made."""
    board = _hall_board(entries, game, period, bbs, now, t)
    return _ansi_file(_screen(board, _ANSI, cp437_text, server, t), board.heading, now)


def ascii_bulletin(entries: Sequence[HallEntry], *, game: str | None, period: str,
                   bbs: str | None, now: float, t: Translator = ENGLISH,
                   server: str = "Global Village BBS PoKeR") -> str:
    """The same screen as :func:`ansi_bulletin` in plain ASCII (``+ = - |`` for the box,
    no colours, names without accents), lines ending in CR LF (for a BBS that shows it
    to a caller without ANSI)."""
    board = _hall_board(entries, game, period, bbs, now, t)
    return "".join(line + "\r\n" for line in _screen(board, _ASCII, ascii_text, server, t))


def json_bulletin(entries: Sequence[HallEntry], *, game: str | None, period: str,
                  bbs: str | None, now: float, since: float | None) -> str:
    """The hall of fame as JSON for a web page: ``{"generated_at": Unix seconds,
    "period": "week"|"month"|"all", "since": Unix seconds or null, "game": kind or null,
    "bbs": tag or null, "players": [{"rank", "handle", "alias", "bbs" (null: came
    directly), "net", "cubes_won", "cubes_paid", "games", "won", "biggest_pot"}]}``
    (CUBES as whole numbers), best first."""
    return json.dumps({"generated_at": now, "period": period, "since": since, "game": game,
                       "bbs": bbs, "players": [asdict(e) for e in entries]},
                      ensure_ascii=False, indent=2) + "\n"


def _season_board(entries: Sequence[SeasonEntry], season: Season | None, bbs: str | None,
                  now: float, t: Translator) -> _Board:
    """The tournament standings' :class:`_Board`."""
    return _Board(t.gettext("Tournaments"), f"{season_text(season, t)} - {_systems(bbs, t)}",
                  _SEASON_COLUMNS, [(e.rank, e.net, _season_cells(e, t)) for e in entries],
                  t.gettext(_NO_TOURNAMENTS),
                  t.gettext("Points: 10 x sqrt(entrants / place). As of {when}.").format(
                      when=_stamp(now)))


def ansi_standings(entries: Sequence[SeasonEntry], *, season: Season | None,
                   bbs: str | None, now: float, t: Translator = ENGLISH,
                   server: str = "Global Village BBS PoKeR") -> bytes:
    """The tournament standings of ``season`` (``None``: all time) as a logon bulletin:
    the screen of :func:`ansi_bulletin` (CP437, 79 columns, 19 rows, SAUCE) with the
    standings' columns."""
    board = _season_board(entries, season, bbs, now, t)
    return _ansi_file(_screen(board, _ANSI, cp437_text, server, t), board.heading, now)


def ascii_standings(entries: Sequence[SeasonEntry], *, season: Season | None,
                    bbs: str | None, now: float, t: Translator = ENGLISH,
                    server: str = "Global Village BBS PoKeR") -> str:
    """The same screen as :func:`ansi_standings` in plain ASCII, lines ending in CR LF."""
    board = _season_board(entries, season, bbs, now, t)
    return "".join(line + "\r\n" for line in _screen(board, _ASCII, ascii_text, server, t))


def json_standings(entries: Sequence[SeasonEntry], *, season: Season | None, length: str,
                   bbs: str | None, now: float) -> str:
    """The tournament standings as JSON for a web page: ``{"generated_at": Unix seconds,
    "season": label ("2026-11", "2026-W48") or null for all time, "length": "week" |
    "month", "since", "until": the season's bounds in Unix seconds or null, "bbs": tag or
    null, "players": [{"rank", "handle", "alias", "bbs", "points", "played", "wins",
    "cashes", "net"}]}`` (CUBES as whole numbers), best first."""
    since, until = season_bounds(season)
    return json.dumps({"generated_at": now, "season": None if season is None else season.label,
                       "length": length, "since": since, "until": until, "bbs": bbs,
                       "players": [asdict(e) for e in entries]},
                      ensure_ascii=False, indent=2) + "\n"
