"""The game screen as a player sees it: render() output fed into a pyte 80x24 terminal."""

import dataclasses
import io
import re

import blessed
import pyte
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wcwidth import wcwidth

from bbspoker.door.look import CLASSIC, CP437_SUITS, Look
from bbspoker.door.screens import regions as screen
from bbspoker.door.screens.regions import GameView, Opponent, ScreenRenderer
from bbspoker.rules.cards import DECK, parse_cards
from bbspoker.transport.session import _CP437_C1
from bbspoker.transport.telnet import terminal_for

#: The suits a CP437 terminal draws for the bytes 0x03-0x06.
_CP437_GLYPHS = {ord(byte): glyph for glyph, byte in CP437_SUITS.items()}
#: The colour looks of each encoding, beside the classic one.
COLOUR = {"utf-8": Look("utf-8", True, "symbols"), "cp437": Look("cp437", True, "symbols")}

TERMS: dict[str, blessed.Terminal] = {}


def term(kind="xterm-256color"):
    """One shared Terminal per kind, as the server keeps them; ``telnet:KIND`` is the
    server's own (``terminal_for``: BBS kinds get a scroll region, issue 21)."""
    if kind not in TERMS:
        TERMS[kind] = (terminal_for(kind.split(":", 1)[1]) if kind.startswith("telnet:") else
                       blessed.Terminal(kind=kind, stream=io.StringIO(), force_styling=True))
    return TERMS[kind]


class ScoStream(pyte.Stream):
    """pyte's stream plus ESC[s / ESC[u (SCO save/restore cursor, used by kind "ansi")."""

    csi = {**pyte.Stream.csi, "s": "sco_save", "u": "sco_restore"}


class Client(pyte.Screen):
    """A terminal that also records the two things the renderer must never do.

    - write the bottom-right cell (it scrolls some terminals);
    - scroll the whole screen (a line feed on the last row without a scroll region).
    """

    def __init__(self, cols=80, rows=24, encoding="utf-8"):
        super().__init__(cols, rows)
        self.encoding = encoding
        self.stream = ScoStream(self)
        self.bottom_right_written = False
        self.whole_screen_scrolled = False

    def sco_save(self, *_):
        self.save_cursor()

    def sco_restore(self, *_):
        self.restore_cursor()

    def draw(self, data):
        for ch in data:
            if self.cursor.y == self.lines - 1 and self.cursor.x + max(wcwidth(ch), 0) >= self.columns:
                self.bottom_right_written = True
            super().draw(ch)

    def index(self):
        if self.margins is None and self.cursor.y == self.lines - 1:
            self.whole_screen_scrolled = True
        super().index()

    def feed(self, out: str) -> int:
        """Send the renderer's output as the session would (encoded, a CP437 session's
        suits as bytes 0x03-0x06, drawn as suits by a CP437 terminal); return the byte
        count."""
        if self.encoding == "cp437":
            data = out.translate(_CP437_C1).encode(self.encoding)
            self.stream.feed(data.decode(self.encoding).translate(_CP437_GLYPHS))
        else:
            data = out.encode(self.encoding)
            self.stream.feed(data.decode(self.encoding))
        assert not self.bottom_right_written and not self.whole_screen_scrolled
        return len(data)

    def pens(self):
        """Every cell's character and colours: (data, fg, bg, bold), row by row; a blank
        without a background looks the same in any foreground, so only its background
        counts."""
        return [[(c.data, c.fg, c.bg, c.bold) if c.data != " " or c.bg != "default" else (" ", c.bg)
                 for c in (self.buffer[y][x] for x in range(self.columns))]
                for y in range(self.lines)]

    def assert_shows(self, other):
        """Assert that every cell shows what ``other``'s does, character and colours
        (:meth:`pens`: the characters are in it); on a difference the text is compared
        first, for a readable failure."""
        if self.pens() != other.pens():
            assert self.display == other.display
            assert self.pens() == other.pens()

    def cell(self, row, col):
        """The character in one cell, 1-based row and column ("" right of a wide character)."""
        return self.buffer[row - 1][col - 1].data

    def row(self, n):
        """Screen row n, 1-based as in the mock-up."""
        return self.display[n - 1]


def paint(view, kind="xterm-256color", encoding="utf-8", cols=80, rows=24, look=CLASSIC):
    """A fresh client screen showing the full paint of view in ``look``, and the paint's
    size in bytes."""
    client = Client(cols, rows, encoding)
    renderer = ScreenRenderer(term(kind), encoding, look)
    renderer.resize(cols, rows)
    size = client.feed(renderer.render(view))
    return client, size


MOCKUP_VIEW = GameView(
    handle="Nicolas",
    cubes=658,
    opponents=(Opponent("Betty", True), Opponent("Moumouna", True), Opponent("Romain", True), Opponent("Slider", True)),
    master="Nicolas",
    current="Moumouna",
    pot=53,
    round_label="1",
    my_cards=parse_cards("K* 9- Q# J+ 10*"),
    commands=("[.] Send a chat message", "[X] Exit the game"),
    messages=(
        ("SYSTEM", "The game is now STARTED (initial pot is 50) ..."),
        ("SYSTEM", "Nicolas has called the bet (1), pot is 51."),
        ("Nicolas", "Betty ! A toi !"),
        ("SYSTEM", "Betty has raised the bet (2), pot is 53."),
    ),
    message_count=4,
)

# The mock-up of gvbbs-poker-fr.txt (lines 127-150) without its region numbers, with the
# arrow on the newest message; the bottom-right cell stays empty.
MOCKUP_SCREEN = [
    "+-----------------------------------------+------------------------------------+",
    "| Betty               [?] [?] [?] [?] [?] | Master ...... Nicolas              |",
    "| Moumouna            [?] [?] [?] [?] [?] | Current ..... Moumouna             |",
    "| Romain              [?] [?] [?] [?] [?] | Pot ......... 53                   |",
    "| Slider              [?] [?] [?] [?] [?] | Round ....... 1                    |",
    "+-----------------------------------------+------------------------------------+",
    "| +-----+ +-----+ +-----+ +-----+ +-----+ | [.] Send a chat message            |",
    "| |9- -9| 10* *10 |J+ +J| |Q# #Q| |K* *K| | [X] Exit the game                  |",
    "| |-   -| |*   *| |+   +| |#   #| |*   *| |                                    |",
    "| |-   -| |*   *| |+   +| |#   #| |*   *| |                                    |",
    "| |9- -9| 10* *10 |J+ +J| |Q# #Q| |K* *K| |                                    |",
    "| +-----+ +-----+ +-----+ +-----+ +-----+ |                                    |",
    "+---------- Nicolas [658 CUBES] ----------+------------------------------------+",
    "|  [SYSTEM] The game is now STARTED (initial pot is 50) ...                    |",
    "|  [SYSTEM] Nicolas has called the bet (1), pot is 51.                         |",
    "|  [Nicolas] Betty ! A toi !                                                   |",
    "|->[SYSTEM] Betty has raised the bet (2), pot is 53.                           |",
    *["|                                                                              |"] * 6,
    ">                                                                             < ",
]


def test_first_paint_is_the_mockup_with_cursor_on_the_input_line():
    client, _ = paint(MOCKUP_VIEW)
    assert client.display == MOCKUP_SCREEN
    assert (client.cursor.y, client.cursor.x) == (23, 2)


def test_no_game_shows_face_down_cards_and_no_game_labels():
    view = GameView(handle="alice", cubes=1000, master="alice", messages=(("INFO", "Welcome."),), message_count=1)
    client, _ = paint(view)
    assert client.row(3).startswith("|" + " " * 41 + "| Current ..... NO GAME ")
    assert client.row(4).endswith(f"| Pot ......... {'NO GAME':20} |")
    assert client.row(5).endswith(f"| Round ....... {'NO GAME':20} |")
    assert client.row(8)[:42] == "| |/\\/\\/| |/\\/\\/| |/\\/\\/| |/\\/\\/| |/\\/\\/| "
    assert client.row(9)[:42] == "| |\\/\\/\\| |\\/\\/\\| |\\/\\/\\| |\\/\\/\\| |\\/\\/\\| "
    assert client.row(13).startswith("+---------- alice [1,000 CUBES] ---")
    assert client.row(13).endswith("-----+")  # no clock
    assert client.row(6) == MOCKUP_SCREEN[5]  # no X-messages, no counter


@pytest.mark.parametrize("lang, says", [("en", "[1,500 chips]"), ("de", "[1.500 Chips]"),
                                        ("fr", "jetons]")])
def test_a_tournament_tables_status_shows_chips_not_cubes(lang, says):
    view = GameView(handle="alice", cubes=1500, chips=True, lang=lang)
    client, _ = paint(view)
    assert says in client.row(13) and "CUBES" not in client.row(13)
    # Repainted as cash: the region follows the flag.
    renderer = ScreenRenderer(term("xterm-256color"), "utf-8", CLASSIC)
    renderer.resize(80, 24)
    client = Client(80, 24, "utf-8")
    client.feed(renderer.render(view))
    client.feed(renderer.render(dataclasses.replace(view, chips=False)))
    assert "CUBES" in client.row(13)


def _tournament_forms(lang, bet, ante, next_level_in, left, average, place):
    """The tournament line's forms of a draw40 tournament at level 1 (``bet``, ``ante``)
    as the door makes them for a player at a table, in ``lang``."""
    from bbspoker.door.tournaments import compact_lines
    from bbspoker.table.director import TournamentView
    from tests.support.telnetclient import tournament_spec
    spec = tournament_spec(game="draw40", seats=5, chips=3 * bet, levels=[(bet, ante, 10.0)])
    view = TournamentView(spec, 1, "running", entrants=left, level=0,
                          next_level_in=next_level_in, players_left=left,
                          average_stack=average, table=1, place_if_out=place)
    return compact_lines(view, screen.translator(lang))


@pytest.mark.parametrize("lang, says", [
    ("en", ("L1 1-50 a5", "next 4:13", "5 left", "out 5th")),
    ("de", ("L1 1-50 A5", "Ende 4:13", "5 übrig", "raus 5.")),
    ("fr", ("N1 1-50 a5", "fin 4:13", "5 en jeu"))])
def test_a_draw40_tournament_table_shows_its_line_in_the_status_border(lang, says):
    """Between ``alice [498 chips]`` and the clock: level, stakes and ante, the time to
    the next level, players left (and the place of one going out now where it fits),
    each part whole, two rule cells after the chips and one before the clock; in colour
    as labels."""
    forms = _tournament_forms(lang, 50, 5, 252.3, 5, 900, 5)
    view = GameView(handle="alice", cubes=498, chips=True, clock="0:22", tournament=forms,
                    lang=lang)
    client, _ = paint(view)
    row = client.row(13)
    money = "[498 chips]" if lang == "en" else "[498 Chips]" if lang == "de" else "[498 jetons]"
    assert row.startswith(f"+---------- alice {money} --") and row.endswith(" - 0:22 +")
    line = row[row.index(money) + len(money):-len(" - 0:22 +")].strip(" -")
    assert line in forms and all(part in line for part in says)
    colour, _ = paint(dataclasses.replace(view, pot=53), look=COLOUR["utf-8"])
    assert _colour_of(colour, 13, line) == _colour_of(colour, 4, "Pot"[:2])   # a label's


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_a_draw40_tournament_line_at_large_figures_drops_parts_and_stays_in_its_cells(lang):
    """A 16-cell handle, eight-figure chips and stakes, an hour to the next level and a
    thousand players left: the line drops its least used parts, keeps the level and
    stakes, and cuts into neither the status text, the border nor the clock."""
    forms = _tournament_forms(lang, 400_000, 40_000, 4000, 1234, 1_928_571, 1234)
    for handle, cubes in (("x" * 16, 12_345_678), ("alice", 498)):
        view = GameView(handle=handle, cubes=cubes, chips=True, clock="0:22", tournament=forms,
                        lang=lang)
        client, _ = paint(view)
        row = client.row(13)
        cash, _ = paint(dataclasses.replace(view, tournament=()))
        status = cash.row(13).rstrip("-+ 0:2").rstrip("-+")
        assert row.startswith(status) and row.endswith(" - 0:22 +") and len(row) == 80
        line = row[len(status):-len(" - 0:22 +")].strip(" -+")
        assert line in forms[1:] and row[len(status):].startswith(" --")
        assert forms[0].split()[0] in line and "400" in line


def test_showdown_reveals_opponent_cards_and_hides_folded_ones():
    view = dataclasses.replace(
        MOCKUP_VIEW,
        opponents=(
            Opponent("Betty", competing=True, revealed=parse_cards("A+ 5- 10* K# 7*")),
            Opponent("Moumouna"),
            Opponent("Romain", competing=True),
        ),
        round_label="SHOWDOWN",
        commands=("[R] Reveal hand", "[.] Send a chat message", "[X] Exit the game"),
    )
    client, _ = paint(view)
    assert client.row(2) == "| Betty                5-  7* 10*  K#  A+ | Master ...... Nicolas              |"
    assert client.row(3).startswith(f"| {'Moumouna':40}|")
    assert client.row(4).startswith("| Romain              [?] [?] [?] [?] [?] |")
    assert client.row(5).startswith("|                                         | Round ....... SHOWDOWN ")
    assert client.row(7).endswith("| [R] Reveal hand                    |")


def test_cards_selected_for_discard_are_face_down_and_prompt_shows():
    view = dataclasses.replace(
        MOCKUP_VIEW,
        round_label="DISCARDING INTERVAL",
        discards=frozenset(parse_cards("10* Q#")),
        commands=("[1]-[5] Discard cards", "[D] Done, continue", "[.] Send a chat message", "[X] Exit the game"),
        prompt="You may discard up to 3 cards.",
    )
    client, _ = paint(view)
    assert client.row(5).endswith(f"| Round ....... {'DISCARDING INTERVAL':20} |")
    assert client.row(8)[:42] == "| |9- -9| |/\\/\\/| |J+ +J| |/\\/\\/| |K* *K| "
    assert client.row(10)[:42] == "| |-   -| |/\\/\\/| |+   +| |/\\/\\/| |*   *| "
    assert [client.row(n)[44:78].rstrip() for n in range(7, 12)] == [
        "[1]-[5] Discard cards",
        "[D] Done, continue",
        "[.] Send a chat message",
        "[X] Exit the game",
        "You may discard up to 3 cards.",
    ]


def test_player_message_replaces_the_cards():
    view = dataclasses.replace(MOCKUP_VIEW, my_cards=None, player_message="You may join the next game.")
    client, _ = paint(view)
    assert client.row(7)[:43] == f"| {'You may join the next game.':40}|"
    assert all(client.row(n)[:43] == "|" + " " * 41 + "|" for n in range(8, 13))


def test_x_message_counter_in_the_separator():
    client, _ = paint(dataclasses.replace(MOCKUP_VIEW, xmsg_count=3))
    assert client.row(6) == "+--------------[3 X-messages]-------------+------------------------------------+"


def test_an_opponent_whose_connection_dropped_is_marked_away_and_keeps_the_cards():
    bob = Opponent("bob", competing=True, away=True)
    gone = Opponent("Jean-Christophe", away=True)
    client, _ = paint(dataclasses.replace(MOCKUP_VIEW, opponents=(bob, gone)))
    assert client.row(2)[:43] == "| bob          (away) [?] [?] [?] [?] [?] |"
    assert client.row(3)[:43] == "| Jean-Christo (away)                     |"


def test_spectators_are_counted_at_the_right_of_the_separator_and_go_when_none_watch():
    client, renderer, _ = start(dataclasses.replace(MOCKUP_VIEW, xmsg_count=1, watchers=2))
    assert client.row(6) == "+--------------[1 X-message]--------------+----------------------[2 watching]--+"
    client.feed(renderer.render(dataclasses.replace(MOCKUP_VIEW, xmsg_count=1)))
    assert client.row(6) == "+--------------[1 X-message]--------------+------------------------------------+"


def test_chat_line_shows_handle_and_text_with_cursor_after_it():
    client, _ = paint(dataclasses.replace(MOCKUP_VIEW, chat_input="hi all "))
    assert client.row(24) == f"> {'Nicolas: hi all':76}< "
    assert (client.cursor.y, client.cursor.x) == (23, 18)


def start(view, kind="xterm-256color", encoding="utf-8"):
    client = Client(encoding=encoding)
    renderer = ScreenRenderer(term(kind), encoding)
    full = client.feed(renderer.render(view))
    return client, renderer, full


def test_clock_tick_costs_at_most_16_bytes_and_keeps_the_cursor():
    view = dataclasses.replace(MOCKUP_VIEW, clock="1:00", chat_input="typing")
    client, renderer, _ = start(view)
    assert client.row(13).endswith("------------------------------ 1:00 +")
    cursor = (client.cursor.y, client.cursor.x)
    for clock in ("0:59", "0:58", "0:50", "0:49", "0:09", "0:00"):
        size = client.feed(renderer.render(dataclasses.replace(view, clock=clock)))
        assert size <= 16
        assert client.row(13).endswith(f" {clock} +")
        assert (client.cursor.y, client.cursor.x) == cursor
    assert renderer.render(dataclasses.replace(view, clock="0:00")) == ""


def say(view, *messages):
    """The view after the player was shown more messages (tag, text)."""
    everything = view.messages + messages
    return dataclasses.replace(view, messages=everything[-10:], message_count=view.message_count + len(messages))


def test_new_messages_scroll_the_area_with_the_arrow_on_the_newest():
    view = MOCKUP_VIEW
    client, renderer, full = start(view)
    for i in range(5, 14):
        view = say(view, ("alice", f"message {i}"))
        size = client.feed(renderer.render(view))
        assert size < full / 10
        assert client.display == paint(view)[0].display
    rows = [client.row(n) for n in range(14, 24)]
    assert rows[0] == "|  [SYSTEM] Betty has raised the bet (2), pot is 53.                           |"
    assert rows[-1] == "|->[alice] message 13                                                          |"
    assert sum("->" in r for r in rows) == 1


def test_a_long_message_goes_on_in_the_next_rows_under_its_text():
    win = ("Jean-Christophe wins the pot of 1,250 CUBES with Full house, Queens over Sevens!")
    rows = screen.message_rows("SYSTEM", win)
    assert rows == (("SYSTEM", "Jean-Christophe wins the pot of 1,250 CUBES with Full house,"),
                    (screen.CONTINUED, "         Queens over Sevens!"))
    full_area = say(MOCKUP_VIEW, *[("INFO", f"m{i}") for i in range(6)])
    view = say(full_area, *rows)
    client, renderer, full = start(full_area)
    assert client.feed(renderer.render(view)) < full / 5
    shown = [client.row(n) for n in range(14, 24)]
    first = "[SYSTEM] Jean-Christophe wins the pot of 1,250 CUBES with Full house,"
    second = "         Queens over Sevens!"
    assert shown[-2:] == [f"|->{first:75} |", f"|  {second:75} |"]
    assert sum("->" in r for r in shown) == 1
    assert client.display == paint(view)[0].display
    # The next message takes the arrow; the message above keeps both its rows.
    client.feed(renderer.render(say(view, ("bob", "nh"))))
    assert [client.row(n) for n in (21, 22, 23)] == [
        f"|  {first:75} |", f"|  {second:75} |", f"|->{'[bob] nh':75} |"]


def test_a_message_too_long_for_three_rows_ends_in_dots_and_a_short_one_keeps_one_row():
    rows = screen.message_rows("alice", "word " * 60)
    assert len(rows) == screen.MESSAGE_MAX_ROWS and rows[-1][1].endswith(" ...")
    assert all(r[0] == screen.CONTINUED and r[1].startswith(" " * 8 + "word") for r in rows[1:])
    assert all(len("[alice] " + rows[0][1]) <= 75 and len(r[1]) <= 75 for r in rows)
    assert screen.message_rows("bob", "x" * 69) == (("bob", "x" * 69),)  # 75 cells exactly
    assert len(screen.message_rows("bob", "x" * 70)) == 2
    assert screen.message_rows("m\x1bal", "\x1b[2Jhi") == (("mal", "[2Jhi"),)  # cleaned
    welcome = "Welcome to the table, Jean-Christoph. Jean-Christoph is the game-master."
    assert screen.message_rows("INFO", welcome) == (
        ("INFO", "Welcome to the table, Jean-Christoph. Jean-Christoph is the"),
        (screen.CONTINUED, "       game-master."))               # at a space, not a hyphen


def test_message_area_scrolls_with_the_terminals_scroll_region():
    view = say(MOCKUP_VIEW, *[("INFO", f"m{i}") for i in range(6)])  # area full
    client, renderer, _ = start(view)
    out = renderer.render(say(view, ("bob", "hello")))
    assert "\x1b[14;23r" in out and out.count("hello") == 1
    assert "m1" not in out  # the kept lines are moved by the terminal, not rewritten


def test_bbs_terminal_kinds_scroll_the_message_area_too():
    """Issue 21: ansi (any unknown TTYPE) and ansi-bbs have no scroll region in terminfo, but
    the BBS clients honour DECSTBM: the server's terminals for them scroll, and a bet costs
    under a tenth of a repaint, as on xterm."""
    for kind, encoding in (("ansi", "utf-8"), ("ansi-bbs", "cp437"), ("syncterm", "cp437")):
        view = dataclasses.replace(MOCKUP_VIEW, messages=MOCKUP_VIEW.messages * 3,
                                   message_count=12)
        client, renderer, full = start(view, f"telnet:{kind}", encoding)
        view = say(dataclasses.replace(view, current="Romain", pot=78),
                   ("SYSTEM", "Moumouna has raised the bet (25), pot is 78."))
        out = renderer.render(view)
        assert "\x1b[14;23r" in out and "\x1b[1;24r" in out, kind
        assert client.feed(out) < full / 10, kind
        assert client.display == paint(view, f"telnet:{kind}", encoding)[0].display


def test_identical_repeated_messages_still_scroll():
    view = say(MOCKUP_VIEW, *[("bob", "spam")] * 10)
    client, renderer, _ = start(view)
    before = client.display[:]
    view = say(view, ("bob", "spam"))
    out = renderer.render(view)
    assert out != "" and "\x1b[14;23r" in out
    client.feed(out)
    assert client.display == before  # ten identical lines look the same after one more


def test_bet_event_is_a_small_update():
    view = dataclasses.replace(MOCKUP_VIEW, messages=MOCKUP_VIEW.messages * 3, message_count=12)
    client, renderer, full = start(view)
    view = say(dataclasses.replace(view, current="Romain", pot=78), ("SYSTEM", "Moumouna has raised the bet (25), pot is 78."))
    size = client.feed(renderer.render(view))
    assert size < full / 10
    assert client.display == paint(view)[0].display


def test_too_small_window_asks_to_enlarge_and_recovers():
    client, renderer, _ = start(MOCKUP_VIEW)
    renderer.resize(60, 20)
    client.resize(20, 60)
    client.feed(renderer.render(MOCKUP_VIEW))
    text = "".join(client.display)
    assert "Please enlarge your window to at least 80x24 (now 60x20)" in text
    assert "Nicolas" not in text
    assert renderer.render(say(MOCKUP_VIEW, ("bob", "hi"))) == ""  # nothing more while too small
    renderer.resize(80, 24)
    client.resize(24, 80)
    view = say(MOCKUP_VIEW, ("bob", "hi"))
    client.feed(renderer.render(view))
    assert client.display == paint(view)[0].display


def test_invalidate_repaints_everything():
    client, renderer, full = start(MOCKUP_VIEW)
    assert renderer.render(MOCKUP_VIEW) == ""
    renderer.invalidate()
    fresh = Client()
    assert fresh.feed(renderer.render(MOCKUP_VIEW)) == full
    assert fresh.display == MOCKUP_SCREEN


HOSTILE = "".join(map(chr, range(0x00, 0xA0))) + "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069" + "".join(
    map(chr, range(0x200B, 0x2010))
) + "".join(map(chr, range(0x2060, 0x2070))) + "\ufeff\u2028\u2029\ufe0f"
PRINTABLE_ASCII = "".join(map(chr, range(0x20, 0x7F)))


def test_hostile_text_is_drawn_as_its_printable_characters_only():
    evil = GameView(
        handle="ev\x1b[2Jil" + HOSTILE,
        cubes=1,
        opponents=(Opponent("mal\r\nlory" + HOSTILE, True),),
        master="x\x1b]0;pwned\x07y",
        messages=(("mal\u202elory", "hi" + HOSTILE + "!"),),
        message_count=1,
        chat_input="\x9b31m" + HOSTILE,
        prompt="\x07\x1bc",
    )
    shown = GameView(
        handle="ev[2Jil" + PRINTABLE_ASCII,
        cubes=1,
        opponents=(Opponent("mallory" + PRINTABLE_ASCII, True),),
        master="x]0;pwnedy",
        messages=(("mallory", "hi" + PRINTABLE_ASCII + "!"),),
        message_count=1,
        chat_input="31m" + PRINTABLE_ASCII,
        prompt="c",
    )
    for kind in ("xterm-256color", "ansi"):
        out = ScreenRenderer(term(kind)).render(evil)
        assert out == ScreenRenderer(term(kind)).render(shown)
    client, _ = paint(evil)
    assert client.row(2).startswith("| mallory !\"#$%&'()*+ [?] [?]")
    assert client.row(14).startswith("|->[mallory] hi !\"#$%&'")


def test_long_and_wide_text_stays_inside_its_region():
    wide = "漢字" * 60
    view = dataclasses.replace(
        MOCKUP_VIEW,
        opponents=(Opponent(wide, True),),
        master=wide,
        messages=(("SYSTEM", wide), ("alice", "x" * 200)),
        message_count=2,
        prompt=wide,
        chat_input=wide,
        commands=(wide,),
    )
    client, _ = paint(view)
    for n in (2, 3, 7, 8):
        assert client.cell(n, 1) == client.cell(n, 43) == client.cell(n, 80) == "|"
    assert client.row(2).startswith("| 漢字漢字漢字漢字漢  [?]")
    assert client.row(14).endswith("字漢 |") and client.row(15).endswith("xxx |")
    assert client.row(24)[0] == ">" and client.row(24)[-2:] == "< "


def test_cp437_session_gets_question_marks_for_what_it_cannot_show():
    view = say(MOCKUP_VIEW, ("Zoë", "漢字 ok"))
    client, _ = paint(view, kind="ansi", encoding="cp437")
    # The CJK are not in CP437; ë is, but as a byte 0x80-0x9F, which the session sends
    # as its base letter (a terminal taking 8-bit C1 controls would read it as one).
    assert client.row(18).startswith("|->[Zoe] ?? ok   ")
    assert client.row(18).endswith("|")


# -- property: any sequence of views, sizes and repaints ends on the same screen as one
# full paint of the last view.

text = st.text(max_size=24)
cards5 = st.lists(st.sampled_from(DECK), min_size=5, max_size=5, unique=True).map(tuple)
opponent = st.builds(Opponent, text, st.booleans(), st.none() | cards5, st.booleans())
command = st.sampled_from(["[S] Open the game", "[B] Place bet", "[P] Pass", "[1]-[5] Discard cards",
                           "[D] Done, continue", "[H] See hand!", "[R] Reveal hand", "[.] Send a chat message",
                           "[X] Exit the game"])


@st.composite
def step(draw):
    my_cards = draw(st.none() | cards5)
    view = GameView(
        handle=draw(st.sampled_from(["Nicolas", "Zoë", "漢字"]) | text),
        watchers=draw(st.integers(0, 1000)),
        cubes=draw(st.integers(0, 10**12)),
        opponents=tuple(draw(st.lists(opponent, max_size=4))),
        master=draw(st.none() | text),
        current=draw(st.none() | text),
        pot=draw(st.none() | st.integers(0, 10**9)),
        round_label=draw(st.sampled_from(["NO GAME", "1", "DISCARDING INTERVAL", "3", "32699", "SHOWDOWN"])),
        xmsg_count=draw(st.integers(0, 1000)),
        my_cards=my_cards,
        discards=frozenset(draw(st.lists(st.sampled_from(my_cards), max_size=3))) if my_cards else frozenset(),
        player_message=draw(st.none() | st.text(max_size=200)),
        commands=tuple(draw(st.lists(command, max_size=7))),
        prompt=draw(st.none() | st.text(max_size=120)),
        clock=draw(st.none() | st.sampled_from(["3:00", "1:00", "0:59", "0:10", "0:09", "0:00"])),
        chat_input=draw(st.none() | st.text(max_size=100)),
    )
    new_messages = draw(st.lists(st.tuples(st.sampled_from(["SYSTEM", "INFO", "bob"]) | text,
                                           st.text(max_size=90)), max_size=12))
    size = draw(st.sampled_from([None] * 8 + [(80, 24), (100, 30), (79, 24), (80, 23), (40, 8)]))
    return view, new_messages, size, draw(st.integers(0, 20)) == 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([("xterm-256color", "utf-8"), ("ansi", "cp437"), ("syncterm", "utf-8"),
                        ("telnet:ansi", "utf-8"), ("telnet:ansi-bbs", "cp437")]),
       st.booleans(), st.lists(step(), min_size=1, max_size=12))
def test_any_sequence_of_updates_equals_a_fresh_full_paint(client_kind, colour, steps):
    """In the classic look and in colour: after any updates, every cell shows what a
    full paint of the last view shows, character and colours (the pen carried from run
    to run, and reset, as the terminal applies it)."""
    kind, encoding = client_kind
    look = COLOUR[encoding] if colour else CLASSIC
    client = Client(encoding=encoding)
    renderer = ScreenRenderer(term(kind), encoding, look)
    messages: list = []
    cols, rows = 80, 24
    painted = False
    for view, new_messages, size, invalidate in steps:
        messages += new_messages
        view = dataclasses.replace(view, messages=tuple(messages[-10:]), message_count=len(messages))
        if size is not None:
            cols, rows = size
            renderer.resize(cols, rows)
            client.resize(rows, cols)
        if invalidate:
            renderer.invalidate()
        out = renderer.render(view)
        if size is None and not invalidate and renderer.cols >= 80 and renderer.rows >= 24 and painted:
            assert term(kind).clear not in out  # only changes after the first paint
        painted = renderer.cols >= 80 and renderer.rows >= 24
        client.feed(out)
        if cols >= 80 and rows >= 24:
            fresh, _ = paint(view, kind, encoding, cols, rows, look)
            client.assert_shows(fresh)
            assert (client.cursor.y, client.cursor.x) == (fresh.cursor.y, fresh.cursor.x) == (23, client.cursor.x)
        else:
            assert f"(now {cols}x{rows})" in "".join(client.display)


def forget_shared_layouts():
    """Empty the renderer's caches shared between screens, so that a reference paint owes
    nothing to what other screens drew."""
    screen._REGION_CACHE.clear()
    screen._PIECE_CACHE.clear()
    screen._STYLE_CACHE.clear()
    screen._COLOUR_PIECE_CACHE.clear()
    screen._TRANSITION_CACHE.clear()
    for cached in (screen._message_row, screen._opponent_row, screen._info_row,
                   screen._message_attrs, screen._clock_attrs, screen._opponent_attrs,
                   screen._cells_attrs, screen._proxy, screen._opponent_line,
                   screen._message_line, screen._card_line, screen._opponents_laid_out,
                   screen._info_line):
        cached.cache_clear()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(step(), min_size=1, max_size=8))
def test_screens_sharing_laid_out_regions_each_equal_a_paint_from_scratch(steps):
    """Five players' renderers take the rows that look the same from shared caches (a bet
    is laid out once; an opponent's row is the same on every screen, but on a different
    row of region 1 depending on where the viewer sits): every screen still shows exactly
    its own view, whatever its terminal and encoding."""
    handles = ("amy", "bert", "cleo", "dirk", "eve")
    setups = [("xterm-256color", "utf-8", CLASSIC), ("xterm-256color", "utf-8", COLOUR["utf-8"]),
              ("ansi", "cp437", COLOUR["cp437"]), ("xterm-256color", "utf-8", COLOUR["utf-8"]),
              ("syncterm", "cp437", CLASSIC)]
    clients = [Client(encoding=encoding) for _, encoding, _ in setups]
    renderers = [ScreenRenderer(term(kind), encoding, look) for kind, encoding, look in setups]
    messages: list = []
    for view, new_messages, _, _ in steps:
        messages += new_messages
        # What everyone sees of each seat this step: the competing/revealed state drawn.
        seats = {h: view.opponents[n]._replace(handle=h) if n < len(view.opponents)
                 else Opponent(h) for n, h in enumerate(handles)}
        views = [dataclasses.replace(
            view, handle=handle, cubes=view.cubes + n, messages=tuple(messages[-10:]),
            message_count=len(messages), chat_input=None if n % 2 else view.chat_input,
            opponents=tuple(seats[h] for h in handles if h != handle))
            for n, handle in enumerate(handles)]
        for own, client, renderer in zip(views, clients, renderers):
            client.feed(renderer.render(own))
        for own, client, (kind, encoding, look) in zip(views, clients, setups):
            forget_shared_layouts()
            fresh, _ = paint(own, kind, encoding, look=look)
            client.assert_shows(fresh)
            assert (client.cursor.y, client.cursor.x) == (fresh.cursor.y, fresh.cursor.x)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([("xterm-256color", "utf-8", COLOUR["utf-8"]),
                        ("ansi", "cp437", COLOUR["cp437"]),
                        ("xterm-256color", "utf-8", Look("ascii", True, "gv"))]),
       st.lists(step(), min_size=1, max_size=8))
def test_regions_made_row_by_row_send_the_bytes_of_their_draw_and_style(setup, steps):
    """The regions a colour look redraws at most steps (the opponents, the player's
    cards, the messages) come from caches of whole rows (``_Region.lines``): every update
    is byte for byte the one their draw and style functions give."""
    kind, encoding, look = setup
    plain_regions = tuple(region._replace(lines=None) for region in screen._REGIONS)
    assert any(region.lines is not None for region in screen._REGIONS)
    fast, plain = ScreenRenderer(term(kind), encoding, look), ScreenRenderer(term(kind), encoding, look)
    messages: list = []
    for view, new_messages, _, invalidate in steps:
        messages += new_messages
        view = dataclasses.replace(view, messages=tuple(messages[-10:]), message_count=len(messages))
        if invalidate:
            fast.invalidate()
            plain.invalidate()
        expected = fast.render(view)
        forget_shared_layouts()
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(screen, "_REGIONS", plain_regions)
            patch.setattr(screen, "_INDEXED", tuple(enumerate(plain_regions)))
            assert plain.render(view) == expected
        forget_shared_layouts()


def _diff_colour_run_by_run(term, row, col0, old, new, old_attrs, new_attrs, cursor, pen):
    """A reference for ``_diff_colour`` on rows of one cell per character: each run of
    changed cells written run of marks by run of marks, an SGR before each unless the
    run is blanks in the default pen after a pen without a background."""
    from bbspoker.door.look import BACKGROUND, sgr
    old_attrs = old_attrs if old_attrs is not None else "\x00" * len(old)
    changed = bytes(a != b or c != d for a, b, c, d in zip(old, new, old_attrs, new_attrs))
    out = []
    for run in screen._RUN.finditer(changed):
        first, after = run.span()
        out.append(screen._move(term, cursor, row, col0 + first))
        for m in re.finditer(r"(.)\1*", new_attrs[first:after], re.DOTALL):
            mark, part = ord(m.group()[0]), new[first + m.start():first + m.end()]
            if pen is None:
                out.append(screen._FIRST + chr(mark))
                pen = mark
            elif not (mark == 0 and pen not in BACKGROUND and not part.strip(" ")):
                out.append(sgr(pen, mark))
                pen = mark
            out.append(part)
        cursor = (row, col0 + after) if col0 + after < screen.WIDTH else None
    return "".join(out), cursor, pen


cell = st.sampled_from(list("    ab1[]->") + ["║", "─", "♥", "♠"])
pens = st.sampled_from([0, 0, 0, 0, 1, 4, 5, 6, 10, 10, 15, 17])     # 10: the player in turn's


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(cell, pens, cell, pens), min_size=1, max_size=40),
       st.sampled_from([None, 0, 4, 10]), st.booleans())
def test_a_colour_rows_change_writes_each_pens_cells_with_the_sgr_run_by_run_would(
        cells, pen, old_default):
    """Blanks in the default pen between or after a pen's cells are written in that pen
    (they look alike in any pen without a background): the bytes are those of writing
    each run of one pen with its SGR, as a terminal is told it."""
    new = "".join(c[0] for c in cells)
    new_attrs = "".join(chr(c[1]) for c in cells)
    old = "".join(c[2] for c in cells)
    old_attrs = None if old_default else "".join(chr(c[3]) for c in cells)
    args = (term(), 3, 2, old, new, old_attrs, new_attrs, (3, 0), pen)
    assert screen._diff_colour(*args) == _diff_colour_run_by_run(*args)


def test_typing_in_the_chat_line_sends_little_more_than_the_key():
    view = dataclasses.replace(MOCKUP_VIEW, chat_input="")
    client, renderer, _ = start(view)
    sizes = [client.feed(renderer.render(dataclasses.replace(view, chat_input=typed))) for typed in ("h", "hi", "h")]
    assert sizes[:2] == [1, 1] and sizes[2] <= 3
    assert client.row(24).startswith("> Nicolas: h ") and (client.cursor.y, client.cursor.x) == (23, 12)


def test_cursor_addresses_are_blessed_own_on_every_cell():
    """The renderer formats cursor addresses from a template instead of asking blessed
    for each new cell (issue 6); on every cell of the screen, for the kinds players
    use, the bytes are exactly blessed's."""
    for kind in ("xterm", "xterm-256color", "ansi", "vt100", "linux", "screen"):
        t = term(kind)
        address = screen._cursor_address(t)
        for row in range(screen.HEIGHT):
            for col in range(screen.WIDTH):
                assert address(row, col) == str(t.move_yx(row, col)), (kind, row, col)


class _CharCodedTerminal:
    """A terminal whose cursor address carries row and column as characters (VT52's
    ESC Y r c), which no decimal template can produce."""

    def move_yx(self, row, col):
        return f"\x1bY{chr(32 + row)}{chr(32 + col)}"


def test_cursor_addresses_of_a_non_decimal_terminal_come_from_the_terminal():
    t = _CharCodedTerminal()
    address = screen._cursor_address(t)
    assert [address(r, c) for r, c in ((0, 0), (23, 79), (101, 203))] == [
        "\x1bY  ", "\x1bY7o", "\x1bY\x85\xeb"]


def test_the_clocks_tick_alone_shows_what_a_whole_render_shows():
    """Issue 21: the clock's tick brings only the clock up to date (render_clock, no
    view made); the screen is then the one a whole render of the view with the new
    clock gives, on every kind of terminal, and a window too small asks for a render."""
    view = GameView(handle="alice", cubes=990, clock="0:59", commands=("[B] Place bet",),
                    messages=(("SYSTEM", "bob has called the bet (1), pot is 21."),),
                    message_count=1)
    for kind in ("xterm-256color", "telnet:ansi", "vt100"):
        ticked, whole = Client(), Client()
        a, b = ScreenRenderer(term(kind)), ScreenRenderer(term(kind))
        ticked.feed(a.render(view))
        whole.feed(b.render(view))
        for clock in ("0:58", "0:58", "0:09", None, "2:00"):
            out = a.render_clock(clock)
            assert out is not None
            ticked.feed(out)
            whole.feed(b.render(dataclasses.replace(view, clock=clock)))
            assert ticked.display == whole.display, kind
            assert (ticked.cursor.x, ticked.cursor.y) == (whole.cursor.x, whole.cursor.y)
        assert a.render_clock("0:58") not in (None, "")
        assert a.render_clock("0:58") == ""                   # no change: no bytes
    small = ScreenRenderer(term())
    small.resize(60, 20)
    small.render(view)
    assert small.render_clock("0:58") is None
    assert ScreenRenderer(term()).render_clock("0:58") is None  # nothing painted yet


# -- the colour looks ---------------------------------------------------------------------

def _colour_of(client, row, text, nth=0):
    """(fg, bg, bold) of each cell of the ``nth`` ``text`` on 1-based ``row``."""
    line = client.row(row)
    at = -1
    for _ in range(nth + 1):
        at = line.index(text, at + 1)
    return {(c.fg, c.bg, c.bold) for c in (client.buffer[row - 1][x] for x in range(at, at + len(text)))}


def test_the_gv_table_in_colour_in_cp437_and_utf8_and_the_classic_look_without_any():
    """The mock-up's table in each look: box drawing in cyan, hearts and diamonds red and
    spades and clubs white (CP437: as its suit bytes), the player in turn yellow on blue,
    players out dimmed, the pot yellow, keys yellow, your handle green, SYSTEM lines grey
    beside bright chat in the handle's own colour, who won green, the clock yellow in its
    last 30 s and red in its last 10 s. The classic look: no colour at all."""
    from bbspoker.door.look import PALETTE, Pen, handle_pen
    from bbspoker.door.messages import WON
    view = dataclasses.replace(
        say(MOCKUP_VIEW, (WON, "Betty wins the pot of 53 CUBES.")),
        opponents=(Opponent("Betty", True), Opponent("Moumouna", True), Opponent("Romain", False),
                   Opponent("Slider", True)), clock="0:25")
    names = ["black", "red", "green", "brown", "blue", "magenta", "cyan", "white"]
    chat = PALETTE[handle_pen("Nicolas")]
    for kind, encoding in (("xterm-256color", "utf-8"), ("syncterm", "cp437")):
        client, _ = paint(view, kind, encoding, look=COLOUR[encoding])
        assert client.row(1).startswith("╔═══") and client.cell(7, 3) == "┌", encoding
        assert _colour_of(client, 1, "╔═══") == {("cyan", "default", False)}
        assert "│9♣ ♣9│ 10♥ ♥10 │J♠" in client.row(8)
        assert _colour_of(client, 8, "♥") == {("red", "default", True)}
        assert _colour_of(client, 8, "♠") == {("white", "default", True)}
        assert _colour_of(client, 3, "Moumouna") == {("brown", "blue", True)}
        assert _colour_of(client, 4, "Romain") == {("black", "default", True)}
        assert _colour_of(client, 4, "53") == {("brown", "default", True)}          # the pot
        assert _colour_of(client, 8, "X") == {("brown", "default", True)}           # [X]
        assert _colour_of(client, 13, "Nicolas") == {("green", "default", True)}
        assert _colour_of(client, 14, "The game is now STARTED") == {("white", "default", False)}
        assert _colour_of(client, 16, "[Nicolas]") == {(names[chat.fg], "default", chat.bright)}
        assert _colour_of(client, 16, "Betty ! A toi !") == {("white", "default", True)}
        assert _colour_of(client, 18, "Betty wins the pot") == {("green", "default", True)}
        assert client.row(18).startswith("║->[SYSTEM] Betty wins")
        assert _colour_of(client, 13, "0:25") == {("brown", "default", True)}
        renderer = ScreenRenderer(term(kind), encoding, COLOUR[encoding])
        client = Client(encoding=encoding)
        client.feed(renderer.render(view))
        client.feed(renderer.render_clock("0:05"))
        assert _colour_of(client, 13, "0:05") == {("red", "default", True)}
        client.feed(renderer.render_clock("0:45"))
        assert _colour_of(client, 13, "0:45") == {("default", "default", False)}
    classic = ScreenRenderer(term(), "utf-8").render(view)
    assert re.findall(r"\x1b\[[0-9;]*m", classic) == [term().normal]    # the clear's reset only
    client, _ = paint(view)
    assert client.row(8).startswith("| |9- -9| 10* *10 |J+") and client.row(18).startswith("|->[SYSTEM] Betty")
    assert {(c.fg, c.bg, c.bold) for row in client.buffer.values() for c in row.values()} <= {
        ("default", "default", False)}


def _game_of_thirty_views():
    """Thirty views of a game as it goes on (opponents hidden, revealed, away, a bot; the
    player in turn, the pot, the rounds, X-messages, spectators, cards and discards, a
    message instead of the cards, the prompt, the clock, messages of every length, the
    chat line; the three languages)."""
    cards = tuple(parse_cards("A+ K* 10# 5- J*"))
    opponents = (Opponent("bob", competing=True),
                 Opponent("carol", revealed=tuple(parse_cards("Q+ Q* 7# 7- 6+"))),
                 Opponent("dave", away=True), Opponent("Robo", bot=True, competing=True))
    messages, count, views = [], 0, []
    for i in range(30):
        for tag, text in screen.message_rows("SYSTEM" if i % 3 else "bob",
                                             f"message number {i} " + "word " * (i % 17)):
            messages.append((tag, text))
            count += 1
        views.append(GameView(
            handle="alice", cubes=1234, opponents=opponents, master="bob",
            current=["bob", "alice", "Robo"][i % 3], pot=10 * i, round_label=str(i % 4 + 1),
            xmsg_count=i % 3, watchers=i % 2, my_cards=cards if i % 5 else None,
            discards=frozenset(cards[:2]) if i % 7 == 3 else frozenset(),
            player_message="You may join the next game." if i == 4 else None,
            commands=("[B] Place bet", "[P] Pass", "[.] chat"),
            prompt="Bet (5-200): 2_" if i % 4 == 0 else None, clock=f"0:{59 - i:02d}",
            messages=tuple(messages[-10:]), message_count=count,
            chat_input="hi" if i % 6 == 1 else None, lang=["en", "de", "fr"][i % 3]))
    return views


def test_the_classic_look_sends_the_bytes_the_screen_sent_before_there_was_colour():
    """The classic look is the GV screen as it always was, byte for byte: a game of thirty
    views (each rendered, then a clock tick) sends on xterm, ANSI-BBS (CP437) and ANSI
    exactly the bytes recorded from the renderer before colour and box drawing existed
    (their SHA-256, first 16 digits, in data/classic_gv_screens.json)."""
    import hashlib
    import json
    from pathlib import Path
    recorded = json.loads((Path(__file__).parent / "data" / "classic_gv_screens.json").read_text())
    for kind, encoding in (("xterm-256color", "utf-8"), ("ansi-bbs", "cp437"), ("ansi", "utf-8")):
        renderer = ScreenRenderer(term(kind), encoding)
        sent = []
        for view in _game_of_thirty_views():
            sent.append(renderer.render(view))
            sent.append(renderer.render_clock("0:07") or "")
        digests = [hashlib.sha256(out.encode()).hexdigest()[:16] for out in sent]
        assert digests == recorded[kind], kind


@pytest.mark.parametrize("look", [CLASSIC, COLOUR["utf-8"]], ids=["classic", "colour"])
def test_a_shared_regions_change_is_made_once_for_every_screen_with_the_same_look(
        monkeypatch, look):
    """A bet changes the pot, the player in turn and the message area alike on every
    screen at the table: the first screen of a terminal, encoding and look to take the
    step draws, styles and diffs those regions; the others with the same look showed the
    same before and get the same bytes without drawing them. A screen with another look
    draws its own."""
    before = GameView(handle="amy", cubes=500, opponents=(Opponent("bert", True),),
                      master="bert", current="bert", pot=50, round_label="1",
                      messages=(("SYSTEM", "bert has joined the table."),), message_count=1)
    after = dataclasses.replace(before, current="amy", pot=75, messages=(
        *before.messages, ("SYSTEM", "bert has raised the bet (25), pot is 75.")),
        message_count=2)
    other = CLASSIC if look is not CLASSIC else COLOUR["utf-8"]
    forget_shared_layouts()
    first, second, third = (ScreenRenderer(term(), "utf-8", look), ScreenRenderer(term(), "utf-8", look),
                            ScreenRenderer(term(), "utf-8", other))
    for renderer in (first, second, third):
        renderer.render(before)
    expected = first.render(after)
    drawn: list[int] = []
    set_region = ScreenRenderer._set

    def counted(self, index, key, view):
        drawn.append(index)
        set_region(self, index, key, view)

    monkeypatch.setattr(ScreenRenderer, "_set", counted)
    assert second.render(after) == expected
    shared = {i for i, r in enumerate(screen._REGIONS) if r.shared and not r.per_screen}
    assert not shared & set(drawn)
    drawn.clear()
    third.render(after)
    assert shared & set(drawn)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(step(), min_size=1, max_size=8))
def test_screens_sharing_changes_send_the_bytes_each_would_send_alone(steps):
    """Byte for byte: every screen's update is what its renderer makes with nothing
    shared (every shared cache emptied before it renders), whatever the other screens at
    the table drew before it, in any look, encoding, terminal and window size."""
    setups = [("xterm-256color", "utf-8", COLOUR["utf-8"]), ("xterm-256color", "utf-8", COLOUR["utf-8"]),
              ("xterm-256color", "utf-8", CLASSIC), ("telnet:ansi-bbs", "cp437", COLOUR["cp437"]),
              ("telnet:ansi-bbs", "cp437", COLOUR["cp437"]), ("syncterm", "cp437", CLASSIC)]
    shared = [ScreenRenderer(term(kind), encoding, look) for kind, encoding, look in setups]
    alone = [ScreenRenderer(term(kind), encoding, look) for kind, encoding, look in setups]
    messages: list = []
    for view, new_messages, size, _ in steps:
        messages += new_messages
        view = dataclasses.replace(view, messages=tuple(messages[-10:]), message_count=len(messages))
        for n, (mine, reference) in enumerate(zip(shared, alone)):
            own = dataclasses.replace(view, cubes=view.cubes + n // 2)
            if size is not None and n % 2:
                mine.resize(*size)
                reference.resize(*size)
            sent = mine.render(own)
            forget_shared_layouts()
            assert sent == reference.render(own)
