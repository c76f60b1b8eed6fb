"""Issue 18, languages: the gettext catalogues (en, de, fr), the rule that user-facing texts
go through them, the labels' widths in every language, numbers grouped per language, the
[i18n] default and the lobby's [L], and a game at the draw40 table played in German and
French at once, on pyte screens."""

from __future__ import annotations

import ast
import asyncio
import contextlib
import functools
import re
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.pofile import read_po

import bbspoker
from bbspoker.config import ConfigError, load_config
from bbspoker.door import i18n
from bbspoker.door.i18n import LANGUAGES, translator
from bbspoker.door.look import CLASSIC
from bbspoker.door.lobby import _MENU
from bbspoker.door.screens.draw40_text import describe_hand, round_label
from bbspoker.door.screens.kinds import KINDS, describe_event, game_title, refusal
from bbspoker.door.screens import draw40
from bbspoker.door.screens.regions import INFO_LABEL_WIDTH, GameView, Opponent, info_labels
from bbspoker.rules.cards import parse_cards
from bbspoker.rules.draw40.hands import evaluate
from bbspoker.rules.events import Event, RuleError
from bbspoker.text import display_width
from tests.support.tableplay import info, table_world
from tests.support.telnetclient import wait_until
from tests.door.test_screen import paint

SRC = Path(bbspoker.__file__).parent
LOCALE = SRC / "door" / "locale"
PLACEHOLDER = re.compile(r"\{(\w*)[^{}]*\}")


@functools.cache
def _code_ids() -> dict[tuple[str | None, str], tuple[str, ...]]:
    """Every message id the code under src/bbspoker uses, as Babel extracts it (the
    keywords of scripts/i18n): ``(context, msgid) -> (msgid, plural msgid ...)``.
    Extracted once per process (the tests only read it)."""
    ids = {}
    keywords = {**DEFAULT_KEYWORDS, **i18n.EXTRA_KEYWORDS}
    for _file, _line, message, _comments, context in extract_from_dir(
            str(SRC), [("**.py", "python")], keywords=keywords):
        forms = message if isinstance(message, tuple) else (message,)
        ids[(context, forms[0])] = forms
    return ids


@functools.cache
def _source_trees() -> tuple[tuple[Path, ast.Module], ...]:
    """Every module of src/bbspoker, in path order, with its parsed syntax tree; parsed
    once per process (the scans only read the trees)."""
    return tuple((path, ast.parse(path.read_text(encoding="utf-8")))
                 for path in sorted(SRC.rglob("*.py")))


def _catalogue(lang: str):
    with open(LOCALE / lang / "LC_MESSAGES" / "bbspoker.po", "rb") as fh:
        return read_po(fh, locale=lang)


def test_every_message_id_of_the_code_is_in_every_catalogue_and_translated():
    """A message id the code uses (extracted by Babel from src/) is missing from no
    catalogue; German and French translate it (every plural form, nothing fuzzy), with
    the same {placeholders} as the English."""
    ids = _code_ids()
    assert len(ids) > 200 and (None, "NO GAME") in ids and ("info label", "Master") in ids
    problems = []
    for lang in LANGUAGES:
        catalogue = _catalogue(lang)
        for (context, msgid), forms in sorted(ids.items(), key=str):
            message = catalogue.get(msgid, context)
            if message is None:
                problems.append(f"{lang}: missing {msgid!r} ({context})")
                continue
            if lang == "en":
                continue
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            if not all(strings) or message.fuzzy:
                problems.append(f"{lang}: untranslated {msgid!r}")
                continue
            wanted = {m for form in forms for m in PLACEHOLDER.findall(form)}
            for s in strings:
                if set(PLACEHOLDER.findall(s)) != wanted:
                    problems.append(f"{lang}: placeholders of {msgid!r} differ in {s!r}")
    assert not problems, "\n".join(problems)


# --- user-facing texts go through the catalogue ------------------------------------------

#: The modules converted so far (issue 18, first step); later steps add theirs. Each maps
#: to ``(functions, whole)``: the functions whose return values people read, and whether
#: the whole module is converted (else only those functions are: messages.py's draw40
#: part; its Hold'em and Schiebe-Poker functions wait for a later step).
CHECKED = {
    "door/login.py": ((), True),
    "door/lobby.py": ((), True),
    "door/prompts.py": ((), True),
    "door/screens/base.py": (("_prompt",), True),
    "door/screens/draw40.py": (("_prompt", "_watching_message", "_intro", "_stakes"), True),
    "door/messages.py": (("seconds_text", "shared_event", "_not_your_turn", "refusal",
                          "describe_stats", "pot_won"), False),
    "door/screens/draw40_text.py": (("describe_hand", "round_label", "cards_word", "_wait",
                                     "_discard_max", "_wrong_phase", "_won",
                                     "describe_event"), False),
    "door/screens/schiebe_text.py": (("card_name", "category_name", "_names", "_pushed",
                                      "_swapped", "_swapped_all", "_places", "_split",
                                      "_ranking", "describe_event"), False),
    "door/screens/holdem_text.py": (("street_name", "holdem_hand", "describe_event"), False),
    "door/screens/rows.py": (("labelled", "command_lines", "bottom_rows", "render",
                              "command_area"), True),
    "door/screens/kinds.py": (("game_title", "games_phrase"), True),
    "door/screens/schiebe.py": (("rows", "_table_rows", "_label", "_opponent", "_between_games",
                                 "_commands", "_prompt", "_info", "_intro", "_stakes"), True),
    "door/screens/holdem.py": (("rows", "_seat_cell", "_middle", "_commands", "_info",
                                "_prompt", "_intro", "_stakes", "_still_seated"), True),
    "door/screens/regions.py": (("render",), False),
    "app.py": ((), True),
    "transport/gateway.py": ((), True),
    "transport/session.py": ((), True),
    "transport/telnet.py": ((), True),
    "transport/ssh.py": ((), True),
    "transport/web.py": ((), True),
}
#: Calls whose text arguments a person reads (the transports' ways of ending a connection
#: with a message among them).
OUTPUT_CALLS = {"write", "end", "read_line", "ask_yes_no", "_add_message", "cut_off",
                "_disconnect", "disconnect", "send_auth_banner", "remove_user", "Response"}
#: Names (or attributes of self) whose values a person reads when a screen shows them.
OUTPUT_NAMES = {"message", "greeting", "error", "prompt", "lines", "state", "doing", "where",
                "head", "hint"}
#: Calls that translate (or mark) their text: what is inside them is fine.
TRANSLATING = {"gettext", "ngettext", "pgettext", "npgettext", "N_", "NP_", "_"}
#: Literals that are not words of a language: the BBS's and the game's own names.
NAMES = {"Global Village BBS", "SYSTEM", "INFO"}
WORDS = re.compile(r"[A-Za-z]{2,}")


def _untranslated(node: ast.AST) -> list[ast.Constant]:
    """The string literals in ``node`` with words in them that no translating call wraps
    (placeholders and escape sequences are not words)."""
    found = []

    def walk(n: ast.AST) -> None:
        if isinstance(n, ast.Call):
            f = n.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name in TRANSLATING:
                return
            if name == "format" and isinstance(f, ast.Attribute):
                walk(f.value)
                for k in n.keywords:
                    walk(k.value)
                return
            if name in {"clean_text", "fit", "join", "strftime", "time", "localtime",
                        "number", "len", "get", "RuleError", "export_private_key"}:
                return
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            text = re.sub(r"\{[^{}]*\}|\x1b\[[0-9;]*[A-Za-z]|\\[rn]", "", n.value)
            if WORDS.search(text) and n.value not in NAMES:
                found.append(n)
            return
        if isinstance(n, (ast.Compare, ast.Subscript)):
            return           # codes: k == "sat", d["pot"]
        for child in ast.iter_child_nodes(n):
            walk(child)

    walk(node)
    return found


def _output_expressions(tree: ast.AST, functions=(), whole: bool = True):
    """The expressions of a module whose text a person reads: the text arguments of
    :data:`OUTPUT_CALLS` (not the session or a timeout), values assigned to
    :data:`OUTPUT_NAMES`, and what ``functions`` return; in the whole module, or (not
    ``whole``) only inside ``functions``."""
    scopes = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
              and n.name in functions]
    for scope in scopes:
        for node in ast.walk(scope):
            if isinstance(node, ast.Return) and node.value is not None:
                yield node.value
    for node in (n for root in ([tree] if whole else scopes) for n in ast.walk(root)):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name in OUTPUT_CALLS:
                yield from (a for a in node.args if not isinstance(a, ast.Name)
                            or a.id not in ("session", "idle", "timeout"))
                yield from (k.value for k in node.keywords if k.arg == "text")
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {t.attr if isinstance(t, ast.Attribute) else getattr(t, "id", "")
                     for t in targets}
            if names & OUTPUT_NAMES:
                yield node.value


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_yes_no_question_shows_the_languages_own_keys(lang):
    """A question that says ``(y/n)`` in English says ``(j/n)`` in German and ``(o/n)`` in
    French, and those are the keys that answer it: the yes key is yes (so is ``y``), the
    no key no, any other key nothing."""
    t = translator(lang)
    assert (t.yes, t.no) == {"en": ("y", "n"), "de": ("j", "n"), "fr": ("o", "n")}[lang]
    questions = [m for m in _catalogue(lang) if isinstance(m.id, str) and "(y/n)" in m.id]
    assert len(questions) >= 5
    for m in questions:
        assert f"({t.yes}/{t.no})" in t.gettext(m.id), m.id
    keys = [m for m in _catalogue(lang) if isinstance(m.id, str) and "[Y]" in m.id]
    assert keys                                         # Schiebe-Poker's vote
    for m in keys:
        assert f"[{t.yes.upper()}]" in t.gettext(m.id), m.id
    assert (t.answer(t.yes.upper()), t.answer("y"), t.answer(t.no), t.answer("q")) == \
        (True, True, False, None)


#: The modules whose texts stay English by design (issue 18: the admin CLI and the logs),
#: or that speak to programs, not people; every other module of src/ is scanned whole.
ENGLISH_BY_DESIGN = {
    "cli.py": "the admin CLI",
    "config.py": "the sysop's config errors",
    "bots/remote.py": "the bot port's protocol (docs/bot-protocol.md)",
    "transport/lines.py": "the bot port's line transport",
    "store/": "the store: admin-facing English; the door words its codes",
}


def test_user_facing_strings_in_src_go_through_the_catalogue():
    """The rule: in every module of src/ (but :data:`ENGLISH_BY_DESIGN`), a string literal
    with words in it that reaches a person -- an argument of ``session.write``/``end``/
    ``read_line``/``ask_yes_no``/``_add_message`` or a transport's way of ending a
    connection, a value given to a name such as ``message`` or ``self.error`` that a
    screen shows, or the return value of a describe function (:data:`CHECKED`) -- is
    wrapped in ``gettext``/``ngettext``/``pgettext`` (or marked with ``N_``/``NP_`` and
    translated where it is used). Placeholders, escape sequences and the BBS's name
    (:data:`NAMES`) are not words. A new module is scanned without being listed."""
    offences = []
    for file, tree in _source_trees():
        path = str(file.relative_to(SRC))
        if any(path.startswith(prefix) for prefix in ENGLISH_BY_DESIGN):
            continue
        functions, whole = CHECKED.get(path, ((), True))
        for expr in _output_expressions(tree, functions, whole):
            for literal in _untranslated(expr):
                offences.append(f"{path}:{literal.lineno}: {literal.value!r}")
    assert not offences, "untranslated texts:\n" + "\n".join(sorted(set(offences)))


def test_no_text_is_marked_inside_an_f_string():
    """Babel's extractor does not look inside f-strings: a ``_("Seats")`` there never
    reaches a catalogue and stays English in every language (the lobby's table headings
    did). Every translating call with a literal stands outside f-strings."""
    hidden = []
    for path, tree in _source_trees():
        for node in ast.walk(tree):
            if not isinstance(node, ast.JoinedStr):
                continue
            for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
                f = call.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                if name in TRANSLATING and any(isinstance(a, ast.Constant) for a in call.args):
                    hidden.append(f"{path.relative_to(SRC)}:{call.lineno}: {ast.unparse(call)}")
    assert not hidden, "translated texts inside f-strings:\n" + "\n".join(hidden)


def test_every_text_in_a_translating_call_reaches_the_catalogue():
    """Babel's extractor skips a marked text nested inside another translating call
    (``_(WHY.get(code, N_("{h} has left the table.")))``): that text reached no
    catalogue and read English in every language. Every literal text of a translating
    call in src/ is among the extracted message ids."""
    ids = {msgid for _context, msgid in _code_ids()}
    missing = []
    for path, tree in _source_trees():
        for call in ast.walk(tree):
            if not isinstance(call, ast.Call):
                continue
            f = call.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            args = call.args[1:] if name in ("pgettext", "npgettext", "NP_") else call.args
            if name in TRANSLATING and args and isinstance(args[0], ast.Constant) \
                    and isinstance(args[0].value, str) and args[0].value not in ids:
                missing.append(f"{path.relative_to(SRC)}:{call.lineno}: {args[0].value!r}")
    assert not missing, "texts Babel does not extract:\n" + "\n".join(missing)


def test_the_scan_catches_an_unwrapped_write():
    """The rule's own check: a plain ``session.write("Hello")`` is caught, a wrapped one
    and a code are not."""
    tree = ast.parse('session.write("Hello there")\nsession.write(_("Hi {h}").format(h=x))\n'
                     'session.write("\\r\\n")\nif k == "sat": pass\n')
    caught = [c.value for e in _output_expressions(tree) for c in _untranslated(e)]
    assert caught == ["Hello there"]


# --- widths, numbers, hands -----------------------------------------------------------

def test_every_draw40_label_fits_its_region_in_every_language():
    """Rendered on an 80x24 pyte screen in each language, region (2)'s labels take their 14
    cells with the values whole after them (NO GAME, every round label), every command
    line fits the 34 cells of region (4), and no border moves."""
    rounds = [round_label(p, r, translator(lang)) for lang in LANGUAGES
              for p, r in (("idle", None), ("betting", 1), ("discarding", 2), ("showdown", 4))]
    assert "KARTEN TAUSCHEN" in rounds and "ÉCHANGE DE CARTES" in rounds
    for lang in LANGUAGES:
        t = translator(lang)
        assert all(display_width(label) == INFO_LABEL_WIDTH + 1 for label in info_labels(lang))
        # a dot leader after every label word ("Master ...... "), none cut short
        assert all(re.fullmatch(r"\S.* \.+ ", label) for label in info_labels(lang)), lang
        commands = [t.gettext(c) for c in (*draw40.COMMAND_TEXT.values(), *draw40.ALWAYS,
                                          draw40.TAKE_SEAT)]
        assert all(display_width(c) <= 34 for c in commands), commands
        for phase, rnd in (("idle", None), ("discarding", 2), ("showdown", 4)):
            label = round_label(phase, rnd, t)
            assert display_width(label) <= 20
            view = GameView(handle="Jean-Christophe1", cubes=1234567, lang=lang,
                            opponents=(Opponent("Betty", True),), master="Nicolas",
                            current=None if phase == "idle" else "Betty",
                            pot=None if phase == "idle" else 1234, round_label=label,
                            xmsg_count=12, watchers=3, commands=tuple(commands[:6]))
            client, _ = paint(view)
            rows = client.display
            for n in (0, 5, 12):
                assert rows[n][0] == "+" and rows[n][42] == "+" and rows[n][79] == "+", rows[n]
            for n in range(1, 5):
                assert rows[n][42] == "|" and rows[n][79] == "|", rows[n]
            assert rows[4][44:44 + 14 + display_width(label)] == info_labels(lang)[3] + label
            no_game = t.gettext("NO GAME")
            assert (rows[2][58:].startswith(no_game) if phase == "idle"
                    else t.number(1234) in rows[3])
            for command in commands[:6]:
                assert command in "\n".join(rows[6:12])
            assert t.number(1234567) in rows[12]


def test_numbers_and_hands_read_the_languages_way():
    """Numbers grouped 1,234 / 1.234 / 1 234; a hand with its plural and the article of
    its rank's gender; a refusal with its numbers grouped."""
    numbers = [translator(lang).number(1234567) for lang in LANGUAGES]
    assert numbers == ["1,234,567", "1.234.567", "1\xa0234\xa0567"]
    hands = {lang: [describe_hand(evaluate(parse_cards(c)), translator(lang))
                    for c in ("A+ A* K# K- 9+", "Q+ J* 10# 9- 8+", "A# Q# 9# 7# 5#")]
             for lang in LANGUAGES}
    assert hands["en"] == ["Two pairs, Aces and Kings", "Straight to the Queen",
                           "Flush, Ace high"]
    assert hands["de"] == ["Zwei Paare, Asse und Könige", "Straße bis zur Dame",
                           "Flush, Ass hoch"]
    assert hands["fr"] == ["Deux paires, As et Rois", "Suite à la Dame",
                           "Couleur, hauteur As"]
    err = RuleError("buy_in_range", low=1000, high=20000)
    assert refusal(err, "holdem", translator("de")) == "Bring zwischen 1.000 und 20.000 CUBES an diesen Tisch mit."
    assert describe_event(Event("discard", "bob", {"count": 1}), "draw40", translator("fr")) == (
        "SYSTEM", "bob a rendu 1 carte.")
    assert describe_event(Event("discard", "bob", {"count": 3}), "draw40", translator("de")) == (
        "SYSTEM", "bob hat 3 Karten getauscht.")


def test_the_lobby_texts_fit_the_screen_in_every_language():
    """The help and the menu lines fit 80 columns in every language."""
    for lang in LANGUAGES:
        t = translator(lang)
        for kind in KINDS.values():                     # a screen each, with the prompt
            lines = t.gettext(kind.help).splitlines()
            assert len(lines) <= 21 and all(display_width(line) <= 80 for line in lines)
        assert all(display_width(f"  [{k}] {t.gettext(label)} (99 unread)") <= 79
                   for k, label in _MENU)


def test_the_table_list_and_the_stats_fit_and_line_up_in_every_language():
    """The lobby's table list rows (every game kind, every state, big stakes) and the
    [S]tats table fit 79 columns in every language (the stats lines 77: the lobby indents
    them by 2); each stats heading ends where the numbers under it end."""
    from types import SimpleNamespace as NS

    from bbspoker.door.lobby import _table_line
    from bbspoker.door.messages import STATS_WIDTH, describe_stats
    stats = [NS(table="red-room", played=1234, won=123, cubes_won=123456, cubes_paid=123456,
                net=-12345, biggest_pot=12345)]
    for lang in LANGUAGES:
        t = translator(lang)
        for game, limit in (("draw40", "fixed"), ("holdem", "fixed"), ("holdem", "pot"),
                            ("holdem", "no"), ("schiebe", "fixed")):
            rules = NS(ante=10000, min_bet=10000, max_bet=200000, small_bet=100000, seats=9,
                       limit=limit)
            for pot, seats in ((None, []), (None, [1]), (40, [1, 2])):
                entry = NS(number=99, name="A table with a long name", title="Schiebe-Poker",
                           spec=NS(game=game, rules=rules, config=rules),
                           service=NS(snapshot=NS(pot=pot, seats=seats, watchers=1234)))
                assert display_width(_table_line(entry, t)) <= 79, (lang, game)
        header, row = describe_stats(stats, {"red-room": game_title("holdem", t)}, t)

        def ends(line: str) -> list[int]:
            return [i for i in range(24, 77) if line[i] != " " and (i == 76 or line[i + 1] == " ")]
        assert display_width(header) == display_width(row) == STATS_WIDTH == 77, lang
        assert set(ends(row)) <= set(ends(header)), (lang, header, row)


def test_the_default_language_is_checked(tmp_path):
    """[i18n] default takes en, de or fr; another value is refused naming the key."""
    good = tmp_path / "good.toml"
    good.write_text('[i18n]\ndefault = "fr"\n')
    assert load_config(good).i18n.default == "fr"
    bad = tmp_path / "bad.toml"
    bad.write_text('[i18n]\ndefault = "es"\n')
    with pytest.raises(ConfigError, match="default"):
        load_config(bad)


def test_a_version_10_database_gains_the_users_language(tmp_path):
    """Migration 11 on a database of schema 10: its accounts stay and have no language
    yet (the default applies); a choice is kept; an unknown account is refused."""
    import sqlite3

    from bbspoker.store.sqlite import SCHEMA_VERSION, Ledger
    from bbspoker.store.wallet import UnknownAccount
    db = tmp_path / "old.db"
    with Ledger(db) as led:
        led.create_account("Alice", "h")
    raw = sqlite3.connect(db)                     # back to schema 10: no language column
    with raw:
        raw.execute("ALTER TABLE accounts DROP COLUMN language")
        raw.execute("ALTER TABLE notices DROP COLUMN code")
        raw.execute("ALTER TABLE notices DROP COLUMN data")
        raw.execute("DROP TABLE signups")             # schema 14's
        raw.execute("DROP TABLE commitments")     # schema 15's
        raw.execute("DROP INDEX accounts_bbs")    # schema 16's
        raw.execute("ALTER TABLE accounts DROP COLUMN bbs")
        raw.execute("DROP TABLE bbs_bans")
        raw.execute("ALTER TABLE accounts DROP COLUMN look")    # schema 17's
        raw.execute("ALTER TABLE accounts DROP COLUMN suits")
        raw.execute("DROP INDEX games_tournament")              # schema 19's
        raw.execute("ALTER TABLE games DROP COLUMN tournament_id")
        raw.execute("DROP INDEX journal_tournament")            # schema 18's
        raw.execute("ALTER TABLE journal DROP COLUMN tournament_id")
        raw.execute("DROP TABLE tournament_entries")
        raw.execute("DROP TABLE tournaments")
        raw.execute("UPDATE schema_version SET version = 10")
    raw.close()
    with Ledger(db) as led:
        assert SCHEMA_VERSION >= 11 and led.schema_version() == SCHEMA_VERSION
        assert led.balance("alice") == 1000 and led.language_of("alice") is None
        led.set_language("alice", "fr")
        assert led.language_of("ALICE") == "fr" and led.language_of("nobody") is None
        with pytest.raises(UnknownAccount):
            led.set_language("nobody", "de")


# --- end to end ---------------------------------------------------------------------------

async def _alice_in_german_bob_in_french(connect):
    """alice and bob logged in, each having chosen a language with [L]: German, French."""
    alice, bob = await connect("alice"), await connect("bob")
    await _choose_language(alice, "2", "Die Tür spricht jetzt Deutsch mit dir.")
    await _choose_language(bob, "3", "La porte vous parle maintenant en français.")
    return alice, bob


async def _choose_language(c, number: str, said: str) -> None:
    await c.send("l")
    await c.wait_for("[3] Français")
    await c.send(number)
    await c.wait_for(said)
    await c.send(" ")


@pytest.mark.e2e
async def test_a_german_and_a_french_player_play_a_game_each_in_their_own_language(tmp_path):
    """alice chooses Deutsch and bob Français with [L]; at the draw40 table each sees the
    same game at the same moment in their own language: the guide's labels (Spielleiter,
    KEIN SPIEL, KARTEN TAUSCHEN / maître du jeu, PAS DE PARTIE, ÉCHANGE DE CARTES), the
    commands, every event, the hands at the showdown."""
    async with table_world(tmp_path) as (server, connect, advance):
        alice, bob = await _alice_in_german_bob_in_french(connect)
        await alice.wait_for("[P] Poker spielen: die Tische")
        await bob.wait_for("[P] Jouer au poker : les tables")
        assert server.app.ledger.language_of("alice") == "de"

        await alice.send("p")
        await alice.wait_for("Gerade spielt niemand Poker.")
        await alice.send("y")
        await alice.wait_for("[X] Spieltisch verlassen")
        await bob.send("p")
        await bob.wait_for("À la table de poker (1 sur 5 places) : alice")
        await bob.send("y")
        await bob.wait_for("[X] Quitter le jeu")

        await alice.wait_for("[S] Spiel eröffnen")
        assert info(alice, "Spielleiter") == "alice" and info(alice, "Am Zug") == "KEIN SPIEL"
        assert info(alice, "Pot") == "KEIN SPIEL" and info(alice, "Runde") == "KEIN SPIEL"
        assert info(bob, "Maître") == "alice" and info(bob, "Au tour de") == "PAS DE PARTIE"
        assert "Willkommen am Tisch, alice." in alice.text

        await alice.send("s")
        await alice.wait_for("Das Spiel ist jetzt ERÖFFNET (Pot am Anfang: 20) ...")
        await bob.wait_for("La partie est LANCÉE (pot initial : 20) ...")
        await alice.wait_for("[B] Einsatz")
        await alice.send("b")
        await alice.wait_for("Enter hält)")
        await alice.send("\r")
        # The same event, on both screens, each in its own language.
        await alice.wait_for("alice hält den Einsatz (1), der Pot ist 21.")
        await bob.wait_for("alice a suivi la mise (1), le pot est de 21.")
        await bob.wait_for("[B] Surenchérir")
        await bob.send("b")
        await bob.wait_for("Entrée suit")
        await bob.send("25\r")
        await alice.wait_for("bob hat erhöht (25), der Pot ist 46.")
        await bob.wait_for("bob a surenchéri (25), le pot est de 46.")

        await alice.wait_for("KARTEN TAUSCHEN: tausche bis zu 3 Karten.")
        await bob.wait_for("ÉCHANGE DE CARTES : rendez jusqu'à 3 cartes.")
        assert info(alice, "Runde") == "KARTEN TAUSCHEN" and info(bob, "Tour") == "ÉCHANGE DE CARTES"
        await alice.send("d")
        await bob.wait_for("alice n'a rendu aucune carte.")
        await bob.send("d")
        await alice.wait_for("bob hat keine Karten getauscht.")
        await alice.wait_for("Runde ....... 3")

        await alice.wait_for("[B] Einsatz")
        await alice.send("b")
        await alice.wait_for("Enter hält)")
        await alice.send("\r")
        await bob.wait_for("[H] Voir le jeu !")
        await bob.send("h")
        await bob.wait_for("Entrée suit")
        await bob.send("\r")
        await alice.wait_for("bob will die Karten sehen: jeder ist noch einmal dran.")
        await alice.wait_for("[B] Einsatz")
        await alice.send("b")
        await alice.wait_for("Enter hält)")
        await alice.send("\r")
        await alice.wait_for("[R] Karten zeigen")
        await bob.wait_for("SHOWDOWN : chaque joueur à son tour révèle son jeu ([R]).")
        assert info(alice, "Runde") == "SHOWDOWN"
        await alice.send("r")
        await bob.wait_for("[R] Révéler son jeu")
        await bob.send("r")
        await alice.wait_for("gewinnt den Pot von")
        await bob.wait_for("gagne le pot de")
        assert re.search(r"alice zeigt .+: ", alice.text) and re.search(r"bob montre .+ : ", bob.text)


@pytest.mark.e2e
async def test_the_login_speaks_the_default_language_and_the_choice_is_remembered(tmp_path):
    """With [i18n] default = "de" the login dialogue and a new user's menu are German; the
    user's [L] choice (English) is kept in the database for the next login."""
    from tests.support.telnetclient import TelnetClient
    async with table_world(tmp_path, i18n={"default": "de"}) as (server, connect, advance):
        c = await TelnetClient.connect(server.port)
        try:
            await c.wait_for("Global Village BBS - PoKeR-Tür")
            await c.wait_for("Name:")
            await c.send("dora\r")
            await c.wait_for("Neuen Benutzer dora anlegen? (j/n)")
            await c.send("J")                      # the German yes key, any case
            await c.wait_for("Passwort:")
            await c.send("pw-dora-1\r")
            await c.wait_for("Passwort noch einmal:")
            await c.send("pw-dora-1\r")
            await c.wait_for("Deine Wahl:")
            assert "[L] Sprache: English, Deutsch, Français" in c.text
            assert server.app.ledger.language_of("dora") is None
            await _choose_language(c, "1", "The door speaks English to you now.")
            await c.wait_for("Your choice:")
            await c.send("q")
            await c.wait_for("Goodbye, come back soon!")
        finally:
            await c.close()
        again = await TelnetClient.connect(server.port)
        try:
            await again.wait_for("Name:")
            await again.send("dora\r")
            await again.wait_for("Passwort:")
            await again.send("pw-dora-1\r")
            await again.wait_for("[P] Play poker: the tables")
        finally:
            await again.close()


@pytest.mark.e2e
async def test_refusals_and_the_sysops_kick_speak_the_users_language(tmp_path):
    """Why a handle or a password is refused, and the sysop's kick from the command line,
    reach a German user in German (the store raises codes; the door words them)."""
    from bbspoker.store.sqlite import Ledger
    from tests.support.telnetclient import TelnetClient
    async with table_world(tmp_path, i18n={"default": "de"}, server={"admin_poll": 0.05}) \
            as (server, connect, advance):
        c = await TelnetClient.connect(server.port)
        try:
            await c.wait_for("Name:")
            await c.send("x\r")
            await c.wait_for("Leider: ein Name hat 2 bis 16 Zeichen.")
            await c.send("dora\r")
            await c.wait_for("Neuen Benutzer dora anlegen? (j/n)")
            await c.send("j")
            await c.wait_for("Passwort:")
            await c.send("abc\r")
            await c.wait_for("Leider: Passwort zu kurz, mindestens 4 Zeichen.")
            assert server.app.ledger.find_account("dora") is None
            await c.send("dora\r")
            await c.send("j")
            await c.wait_for("Passwort:")
            await c.send("pw-dora-1\r")
            await c.wait_for("Passwort noch einmal:")
            await c.send("pw-dora-1\r")
            await c.wait_for("Deine Wahl:")
            with Ledger(server.app.ledger.path) as admin:
                admin.kick("dora", "Schlafenszeit", "sysop-test")
            await c.wait_for("Der Sysop hat deine Sitzung beendet: Schlafenszeit")
            await c.wait_closed()
            assert "The sysop" not in c.text and "Sorry" not in c.text
        finally:
            await c.close()


# --- the Hold'em and Schiebe-Poker screens in every language ------------------------------

class _Viewer:
    """What a row-drawn table screen reads of its session: a player at 80x24 in ``lang``
    with twelve X-messages waiting."""

    def __init__(self, handle: str, lang: str) -> None:
        from tests.door.test_screen import term
        self.handle, self.language = handle, lang
        from bbspoker.door.look import CLASSIC
        self.term, self.encoding, self.cols, self.rows = term(), "utf-8", 80, 24
        self.look = CLASSIC
        self.inbox = [None] * 12


class _Entry:
    """A table of the lobby as the screens read it: name, rules, service."""

    def __init__(self, service, rules) -> None:
        from types import SimpleNamespace
        self.name, self.service, self.spec = "Salon", service, SimpleNamespace(rules=rules,
                                                                             config=rules)


class _App:
    class ledger:           # noqa: N801 - the screens read app.ledger.balance
        @staticmethod
        def balance(handle: str) -> int:
            return 1234567


@contextlib.asynccontextmanager
async def _service(game):
    """A running table service around ``game`` on a fake clock; yields (service, clock)."""
    from bbspoker.table.bus import Bus
    from bbspoker.table.service import TableService
    from tests.support.telnetclient import FakeClock
    clock = FakeClock()
    service = TableService(game, Bus(), clock)
    task = asyncio.create_task(service.run())
    try:
        yield service, clock
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def _screens(kind, entry, handle: str, watching: bool = False):
    """``kind``'s screen for ``handle`` in every language, up to date with the table."""
    screens = [kind(_Viewer(handle, lang), _App(), entry, watching=watching)
               for lang in LANGUAGES]
    return screens


def _shown(screens, set_up=None) -> dict[str, list[str]]:
    """Each screen's 24 rows now (after ``set_up(screen)``) as the classic look shows
    them, by language."""
    from bbspoker.door.look import CLASSIC
    out = {}
    for screen in screens:
        screen.snapshot = screen.service.snapshot
        if not screen.watching:
            screen.cards = screen.service.cards_of(screen.handle)
        if set_up is not None:
            set_up(screen)
        out[screen.t.lang] = [CLASSIC.glyphs(r) for r in screen.rows()[0]]
    return out


class _Fits:
    """Every text the row screens fit into a region, checked: none is wider than its
    region (``fit`` would cut it). Patches ``fit`` of the Hold'em and Schiebe-Poker
    screens."""

    def __init__(self, monkeypatch) -> None:
        from bbspoker.door.screens import holdem, rows, schiebe
        from bbspoker.text import clean_text, fit
        self.cut: list[tuple[str, int]] = []

        def strict(text: str, width: int) -> str:
            if display_width(clean_text(text)) > width:
                self.cut.append((text, width))
            return fit(text, width)

        monkeypatch.setattr(holdem, "fit", strict)
        monkeypatch.setattr(schiebe, "fit", strict)
        monkeypatch.setattr(rows, "fit", strict)


def _check_rows(rows: list[str], split: int = 46) -> None:
    """24 rows of 80 cells (the last 79: the bottom-right cell is never written) with the
    borders in their columns (the command area's at ``split + 1``, a blank before it)."""
    assert len(rows) == 24
    for n, row in enumerate(rows):
        assert display_width(row) == (79 if n == 23 else 80), (n, row)
    for n in range(9, 13):
        assert rows[n][0] == "|" and rows[n][split + 1] == "|" and rows[n][79] == "|", rows[n]
        # a blank before the divider: no key or question runs into it
        assert rows[n][split] == " ", rows[n]
    for n in (8, 13):
        assert rows[n][0] == "+" and rows[n][split + 1] == "+" and rows[n][79] == "+", rows[n]


async def _settle(service, ready) -> None:
    from tests.support.telnetclient import wait_until
    service.wake()
    await wait_until(lambda: ready(service.snapshot))


async def test_every_hold_em_screen_fits_its_regions_in_every_language(monkeypatch):
    """The Hold'em table in every state a player meets -- waiting for players, each
    player's turn with fold/call/raise, a raise to call, the exit question, a refusal, the
    showdown's shown cards, sitting out, a spectator's screen -- rendered in English,
    German and French with 4- and 7-digit numbers: every row is 80 cells, every border in
    its column, and no text is cut to fit its region; the labels are the language's."""
    import random

    from bbspoker.door.screens.holdem import HoldemScreen
    from bbspoker.rules import actions as act
    from bbspoker.rules.holdem import Holdem, HoldemRules, Street
    from bbspoker.rules.money import SYSTEM
    from bbspoker.store.wallet import MemoryWallet
    fits = _Fits(monkeypatch)
    rules = HoldemRules(seats=9, small_bet=1000, between_hands=5.0)
    players = ("alice", "bob", "Nicolas")
    game = Holdem(MemoryWallet({**{h: 10**6 for h in players}, SYSTEM: 0}), rules,
                  rng=random.Random(7))
    seen: list[dict[str, list[str]]] = []
    async with _service(game) as (service, clock):
        entry = _Entry(service, rules)
        await service.call("alice", act.Sit(buy_in=100000))
        screens = {h: _screens(HoldemScreen, entry, h) for h in players}
        seen.append(_shown(screens["alice"]))
        assert "Keine Hand: warte auf Spieler" in "".join(seen[-1]["de"])
        await service.call("bob", act.Sit(buy_in=100000))
        await service.call("Nicolas", act.Sit(buy_in=20000))
        watcher = _screens(HoldemScreen, entry, "carol", watching=True)
        seen.append(_shown(watcher))
        clock.advance(5)
        await _settle(service, lambda s: s.current is not None)
        turns = 0
        while service.snapshot.view.street is not Street.IDLE:
            snap = service.snapshot
            for h in players:
                seen.append(_shown(screens[h]))
            seen.append(_shown(screens[snap.current], lambda s: setattr(s, "mode", "exit")))
            seen.append(_shown(screens[snap.current], lambda s: setattr(
                s, "error", s.kind.refusal(RuleError("check_free"), s.t))))
            legal = snap.actions[snap.current]
            action = act.BetRaise() if act.BetRaise in legal and turns < 4 else act.CheckCall()
            await service.call(snap.current, action)
            turns += 1
        for h in players:                               # the showdown's cards on the seats
            seen.append(_shown(screens[h]))
        await service.call("Nicolas", act.SitOut(out=True))
        seen.append(_shown(screens["Nicolas"]))
        seen.append(_shown(watcher))
    assert not fits.cut, sorted(set(fits.cut))
    for shown in seen:
        for rows in shown.values():
            _check_rows(rows)
    german = "\n".join("\n".join(shown["de"]) for shown in seen)
    french = "\n".join("\n".join(shown["fr"]) for shown in seen)
    for words in ("Am Zug ...", "Uhr ......", "Runde .... Preflop-Limit 1.000", "[F] Aussteigen",
                  "[C] Mitgehen", "[R] Erhöhen auf", "[1.234.567 CUBES]", "[Chips ",
                  "Gehen? Du steigst aus dieser Hand aus. (j/n)", "[12 X-Messages]"):
        assert words in german, words
    for words in ("À jouer ..", "Temps ....", "[F] Se coucher", "[C] Suivre", "[R] Relancer à",
                  "Vous faites une pause : [I] pour revenir.", "TABLEAU", "[tapis "):
        assert words in french, words


@pytest.mark.parametrize("limit", ["no", "pot"])
async def test_every_no_and_pot_limit_hold_em_screen_fits_its_regions_in_every_language(
        monkeypatch, limit):
    """The no-limit and pot-limit Hold'em table in every state of a turn -- the keys with
    the call, the range of [R] and the amount of [A], the raise question with 7 digits
    typed, each refusal of an amount, an all-in of a whole 100-big-blind stack on a seat
    -- in English, German and French with 6- and 7-digit numbers: every row is 80 cells,
    every border in its column, nothing is cut."""
    import random

    from bbspoker.door.keys import LineEditor
    from bbspoker.door.screens.holdem import HoldemScreen
    from bbspoker.rules import actions as act
    from bbspoker.rules.holdem import Holdem, HoldemRules, Street
    from bbspoker.rules.money import SYSTEM
    from bbspoker.store.wallet import MemoryWallet
    fits = _Fits(monkeypatch)
    rules = HoldemRules(seats=9, small_bet=1000, between_hands=5.0, limit=limit)
    players = ("alice", "bob", "Nicolas")
    game = Holdem(MemoryWallet({**{h: 10**8 for h in players}, SYSTEM: 0}), rules,
                  rng=random.Random(7))
    refusals = [RuleError("raise_too_small", low=1234567), RuleError("raise_too_large",
                high=9876543), RuleError("raise_not_number"), RuleError("raise_closed"),
                RuleError("fixed_limit")]

    def asking(s) -> None:
        s.mode, s.editor, s.error = "raise", LineEditor(16), None
        s.editor.text = "98765"

    def refused(err):
        def set_up(s) -> None:
            s.mode, s.editor = None, None
            s.error = None if err is None else s.kind.refusal(err, s.t)
        return set_up

    seen: list[dict[str, list[str]]] = []
    async with _service(game) as (service, clock):
        entry = _Entry(service, rules)
        for h, stack in zip(players, (98765, 100000, 23456)):
            await service.call(h, act.Sit(buy_in=stack))
        screens = {h: _screens(HoldemScreen, entry, h) for h in players}
        clock.advance(5)
        await _settle(service, lambda s: s.current is not None)
        turns = 0
        while service.snapshot.view.street is not Street.IDLE:
            snap = service.snapshot
            for h in players:
                seen.append(_shown(screens[h]))
            seen.append(_shown(screens[snap.current], asking))
            for err in refusals:
                seen.append(_shown(screens[snap.current], refused(err)))
            _shown(screens[snap.current], refused(None))
            legal = snap.actions[snap.current]
            action = (act.BetRaise(to=snap.view.max_raise_to)
                      if act.BetRaise in legal and turns in (1, 3) else act.CheckCall())
            await service.call(snap.current, action)
            turns += 1
    assert not fits.cut, sorted(set(fits.cut))
    for shown in seen:
        for rows in shown.values():
            _check_rows(rows)
    text = {lang: "\n".join("\n".join(shown[lang]) for shown in seen) for lang in LANGUAGES}
    name = {"no": ("No-limit", "No-Limit", "no limit"), "pot": ("Pot-limit", "Pot-Limit",
                                                                 "pot limit")}[limit]
    for lang, words in (("en", (f"{name[0]} Hold'em 500/1,000", "[R] raise to ",
                                "Raise to (")),
                        ("de", (f"{name[1]} Hold'em 500/1.000", "[R] Erhöhen auf ",
                                "Erhöhen auf (", "Zu wenig:")),
                        ("fr", (f"Hold'em {name[2]} 500/1\xa0000", "[R] Relancer à ",
                                "Relancer à ("))):
        for word in words:
            assert word in text[lang], (lang, word)
    assert "[A] " in text["de"] and "98765_" in text["fr"]


async def test_every_schiebe_poker_screen_fits_its_regions_in_every_language(monkeypatch):
    """The Schiebe-Poker table in every state a player meets -- waiting for a second
    player, the proposal and the vote, each turn with push/swap keys, a swap half chosen,
    the rounds being typed, the exit question, a refusal, a spectator, the final ranking --
    rendered in English, German and French with 7-digit numbers: every row is 80 cells,
    every border in its column, no text is cut to fit; the words are the text's
    (Nachziehstapel, Ablage, verdeckt/offen, Rangfolge; pioche, défausse)."""
    import random

    from bbspoker.door.keys import LineEditor
    from bbspoker.door.screens.schiebe import SchiebeScreen
    from bbspoker.rules import actions as act
    from bbspoker.rules.schiebe.actions import LEFT, RIGHT, NoSwap, Propose, Push, Swap, SwapAll, Vote
    from bbspoker.rules.schiebe.game import Phase, Schiebe, SchiebeRules
    from bbspoker.store.wallet import MemoryWallet
    fits = _Fits(monkeypatch)
    rules = SchiebeRules(seats=4, rounds=2, ante=1000)
    players = ("alice", "bob", "Nicolas", "Chloe")
    game = Schiebe(MemoryWallet({h: 10**6 for h in players}), rules, rng=random.Random(5))
    seen: list[dict[str, list[str]]] = []
    async with _service(game) as (service, clock):
        entry = _Entry(service, rules)
        await service.call("alice", act.Sit())
        screens = {h: _screens(SchiebeScreen, entry, h) for h in players}
        seen.append(_shown(screens["alice"]))
        for h in players[1:]:
            await service.call(h, act.Sit())
        watcher = _screens(SchiebeScreen, entry, "carol", watching=True)
        seen.append(_shown(screens["bob"]))
        seen.append(_shown(screens["alice"], lambda s: (setattr(s, "mode", "rounds"),
                                                        setattr(s, "editor", LineEditor(1)))))
        await service.call("alice", Propose(2))
        await service.call("bob", Vote(True))
        for h in ("alice", "bob", "Nicolas"):
            seen.append(_shown(screens[h]))
        seen.append(_shown(watcher))
        for h in ("Nicolas", "Chloe"):
            await service.call(h, Vote(True))
        moves = iter([Push(LEFT), Swap(0, 2), Push(RIGHT), SwapAll()])
        while service.snapshot.view.phase is Phase.PLAYING:
            snap = service.snapshot
            for h in players:
                seen.append(_shown(screens[h]))
            me = screens[snap.current]
            for position in (0, 1, 2):                  # a swap half chosen
                seen.append(_shown(me, lambda s, p=position: setattr(s, "swap_from", p)))
            seen.append(_shown(me, lambda s: setattr(s, "mode", "exit")))
            seen.append(_shown(me, lambda s: setattr(
                s, "error", s.kind.refusal(RuleError("push_direction"), s.t))))
            seen.append(_shown(watcher))
            await service.call(snap.current, next(moves, NoSwap()))
        for h in players:                                    # the final ranking
            seen.append(_shown(screens[h]))
    assert not fits.cut, sorted(set(fits.cut))
    for shown in seen:
        for rows in shown.values():
            _check_rows(rows)
    german = "\n".join("\n".join(shown["de"]) for shown in seen)
    french = "\n".join("\n".join(shown["fr"]) for shown in seen)
    for words in ("MITTE", "Nachziehstapel", "Ablage", "DU        verdeckt [", "offen [",
                  "[<] Links schieben  [>] Rechts schieben", "[A] Alle drei tauschen",
                  "Runde 1 von 2", "Pot ...... 4.000 CUBES", "RANGFOLGE des letzten Spiels",
                  "[J] 2 Runden zustimmen  [N] Ablehnen", "Runden (2-7, Enter: 2): _",
                  "Deine mittlere offene Karte"):
        assert words in german, words
    for words in ("MILIEU", "Pioche", "Défausse", "VOUS      cachées [", "Manche 1 sur 2",
                  "[<] Pousser à gauche", "CLASSEMENT FINAL", "Pot ...... 4\xa0000 CUBES",
                  "votre carte ouverte centrale"):
        assert words in french, words


def test_hold_em_and_schiebe_poker_events_read_in_each_language():
    """The same Hold'em and Schiebe-Poker events in English, German and French: the made
    hand in the form that follows "with" (German dative: "mit zwei Paaren", "mit einer
    Straße"), the blinds, the streets, the cards of the log in words (Pik-Dame, dame de
    pique), the positions' adjectives, plurals, numbers grouped per language."""
    def say(game, kind, data, handle="bob"):
        event = Event(kind, handle, data)
        return {lang: describe_event(event, game, translator(lang))[1] for lang in LANGUAGES}

    def holdem(kind, data):
        return say("holdem", kind, data)

    def schiebe(kind, data):
        return say("schiebe", kind, data)

    won = holdem("won", {"amount": 1250, "pot": 1250, "hand": "TWO_PAIR",
                      "best": "A+ A* 5# 5- K+"})
    assert {lang: CLASSIC.glyphs(line) for lang, line in won.items()} == {
        "en": "bob wins the pot of 1,250 CUBES with two pairs (A+ A* 5# 5- K+).",
        "de": "bob gewinnt den Pot von 1.250 CUBES mit zwei Paaren (A+ A* 5# 5- K+).",
        "fr": "bob gagne le pot de 1\xa0250 CUBES avec deux paires (A+ A* 5# 5- K+)."}
    assert won["en"].endswith("(A\u2660 A\u2665 5\u2666 5\u2663 K\u2660).")   # drawn as suits
    assert holdem("won", {"amount": 625, "pot": 1250}) == {
        "en": "bob wins 625 of the 1,250 CUBES in the pot.",
        "de": "bob gewinnt 625 der 1.250 CUBES im Pot.",
        "fr": "bob gagne 625 des 1\xa0250 CUBES du pot."}
    assert holdem("returned", {"amount": 1}) == {
        "en": "Uncalled bet of 1 CUBE returned to bob.",
        "de": "Nicht gecallter Einsatz von 1 CUBE geht an bob zurück.",
        "fr": "Mise non suivie de 1 CUBE rendue à bob."}
    shown = holdem("show", {"cards": ["J+", "Q+"], "hand": "STRAIGHT", "best": "Q+ J+ 10* 9* 8#"})
    assert shown["de"] == "bob zeigt J♠ Q♠ mit einer Straße (Q♠ J♠ 10♥ 9♥ 8♦)."
    assert CLASSIC.glyphs(shown["fr"]) == "bob montre J+ Q+ avec une suite (Q+ J+ 10* 9* 8#)."
    assert holdem("blind", {"blind": "small", "amount": 5}) == {
        "en": "bob posts the small blind (5).", "de": "bob setzt den Small Blind (5).",
        "fr": "bob pose la petite blind (5)."}
    assert holdem("fold", {"timeout": True})["de"] == \
        "bob hat nicht rechtzeitig gehandelt und steigt aus."
    assert CLASSIC.glyphs(holdem("board", {"street": "turn", "cards": ["9*"],
                                           "board": ["A+", "K*", "2#", "9*"]})["fr"]
                          ) == "TURN : 9*   (tableau A+ K* 2# 9*)"
    swapped = schiebe("swapped", {"own": 0, "middle": 2, "gave": "Q+", "took": "10#"})
    assert swapped == {
        "en": "bob swapped their left open card (Q of spades) for the middle row's right "
              "card (10 of diamonds).",
        "de": "bob hat die linke offene Karte (Pik-Dame) gegen die rechte Karte der Mitte "
              "(Karo-10) getauscht.",
        "fr": "bob a échangé sa carte ouverte de gauche (dame de pique) contre la carte de "
              "droite du milieu (10 de carreau)."}
    pushed = schiebe("pushed", {"direction": "right", "out": "A*", "in": "7-"})
    assert pushed["de"] == ("bob hat die Mitte nach rechts geschoben; Herz-Ass auf den "
                            "Ablagestapel, Kreuz-7 kam dazu.")
    late = schiebe("no_swap", {"timeout": True, "count": 2, "seconds": 60})
    assert late["de"] == ("bob hat nicht innerhalb von 1 Minute gehandelt: 2 verbleibende "
                          "Aktionen ohne Tausch.")
    places = [(1, "alice", "TWO_PAIR"), (1, "bob", "TWO_PAIR"), (3, "carol", "HIGH_CARD")]
    ranking = schiebe("ranking", {"places": places, "pot": 3001, "share": 1500, "remainder": 1})
    assert ranking["de"] == ("Rangfolge: 1. alice (Zwei Paare), 1. bob (Zwei Paare), 3. carol "
                             "(Höchste Karte). alice und bob teilen sich den Pot von 3.001 "
                             "CUBES: je 1.500. 1 CUBE, der sich nicht teilen lässt, geht an "
                             "das System.")
    assert ranking["fr"].startswith("Classement final : 1. alice (Deux paires), 1. bob (Deux "
                                    "paires), 3. carol (Rien). alice et bob se partagent")


@pytest.mark.e2e
async def test_a_german_and_a_french_player_play_hold_em_each_in_their_own_language(tmp_path):
    """At a Hold'em table alice reads German and bob French: the table's entry and the
    buy-in question, the seats, labels and keys of the screen, and every action of the
    same hand at the same moment, each in their own language."""
    rules = {"small_bet": 10, "buy_in_min": 50, "buy_in_max": 1000, "between_hands": 5.0,
             "turn_timeout": 60.0, "seats": 9}
    async with table_world(tmp_path, tables=[("holdem", "Hold'em", "holdem", rules)]) as (
            server, connect, advance):
        alice, bob = await _alice_in_german_bob_in_french(connect)
        await alice.send("p")
        await alice.wait_for("Hold'em -- Texas Hold'em mit festem Limit 10/20 um CUBES, 2-9 "
                             "Spieler")
        await alice.wait_for("An den Tisch setzen? (j/n) [W] Zuschauen")
        await alice.send("j")
        await alice.wait_for("Mit wie vielen CUBES setzt du dich an den Tisch (50-1.000, "
                             "Enter: 1.000)?")
        await alice.send("\r")
        await alice.wait_for("[X] Tisch verlassen")
        assert "Keine Hand: warte auf Spieler" in alice.text and "(frei)" in alice.text
        await bob.send("p")
        await bob.wait_for("Hold'em -- Texas Hold'em à limite fixe 10/20 en CUBES, de 2 à 9 "
                           "joueurs")
        await bob.wait_for("À la table (1 sur 9 places) : alice")
        await bob.send("o")
        await bob.wait_for("Avec combien de CUBES prenez-vous place")
        await bob.send("500\r")
        await bob.wait_for("[X] Quitter la table")
        await alice.wait_for("bob setzt sich mit 500 CUBES an den Tisch.")

        advance(5)
        await alice.wait_for("Hand 1 (Spiel 1): alice hat den Button; Blinds 5/10.")
        await bob.wait_for("Main 1 (partie 1) : alice a le bouton ; blinds 5/10.")
        await alice.wait_for("bob setzt den Big Blind (10).")
        await bob.wait_for("bob pose la grosse blind (10).")
        await alice.wait_for("[F] Aussteigen  [C] Mitgehen 5")
        await alice.wait_for("[R] Erhöhen auf 20")
        assert "Am Zug ... alice" in alice.text and "Runde .... Preflop-Limit 10" in alice.text
        assert "À jouer .. alice" in bob.text and "Tour ..... préflop, mise 10" in bob.text
        assert "Main 1, préflop" in bob.text and "Hand 1, Preflop" in alice.text
        await alice.send("r")
        await alice.wait_for("alice erhöht auf 20.")
        await bob.wait_for("alice relance à 20.")
        await bob.wait_for("[F] Se coucher  [C] Suivre 10")
        await bob.wait_for("[R] Relancer à 30")
        await bob.send("c")
        await alice.wait_for("bob geht für 10 mit.")
        await bob.wait_for("bob suit pour 10.")
        await alice.wait_for("FLOP: ")
        await bob.wait_for("FLOP : ")
        await bob.wait_for("[C] Parole")
        await bob.send("c")
        await alice.wait_for("bob checkt.")
        await alice.wait_for("[R] Setzen 10")
        await alice.send("r")
        await bob.wait_for("alice mise 10.")
        await bob.send("f")
        await alice.wait_for("bob steigt aus.")
        await bob.wait_for("bob se couche.")
        await alice.wait_for("Nicht gecallter Einsatz von 10 CUBES geht an alice zurück.")
        await bob.wait_for("Mise non suivie de 10 CUBES rendue à alice.")
        await alice.wait_for("alice gewinnt den Pot von 40 CUBES.")
        await bob.wait_for("alice gagne le pot de 40 CUBES.")
        await alice.wait_for("[Chips 1.020]")
        await bob.wait_for("[tapis 480]")


@pytest.mark.e2e
async def test_a_german_and_a_french_player_play_schiebe_poker_each_in_their_own_language(
        tmp_path):
    """At a Schiebe-Poker table alice reads German and bob French: the proposal and the
    vote, the middle row, the piles and the cards' labels in the text's words, each push
    and swap logged in both languages at the same moment, the final ranking."""
    from tests.e2e.test_schiebe_e2e import log, wait_log
    rules = {"seats": 3, "rounds": 2, "ante": 10}
    async with table_world(tmp_path, tables=[("schiebe", "Schiebe", "schiebe", rules)]) as (
            server, connect, advance):
        alice, bob = await _alice_in_german_bob_in_french(connect)
        await alice.send("p")
        await alice.wait_for("Schiebe -- Schiebe-Poker für 2-3 Spieler")
        await alice.wait_for("Grundeinsatz 10 CUBES pro Spieler; die Erstplatzierten teilen "
                             "sich den Pot.")
        await alice.send("y")
        await alice.wait_for("[X] Tisch verlassen")
        await bob.send("p")
        await bob.wait_for("Schiebe -- Schiebe-Poker pour 2 à 3 joueurs")
        await bob.send("y")
        await bob.wait_for("[X] Quitter la table")
        await alice.wait_for("[S] Runden vorschlagen (2-7, 2)")
        await alice.send("s")
        await alice.wait_for("Runden (2-7, Enter: 2): _")
        await alice.send("\r")
        await bob.wait_for("[O] Accepter 2 manches  [N] Refuser")
        await wait_log(bob, "alice propose de jouer 2 manches : les autres, [O] accepter ou "
                            "[N] refuser.")
        await bob.send("y")
        await alice.wait_for("Runde 1 von 2")
        await bob.wait_for("Manche 1 sur 2")
        await wait_log(alice, "Schiebe-Poker ERÖFFNET: 2 Runden (Pot 20 CUBES).")
        await wait_log(bob, "Schiebe-Poker LANCÉ : 2 manches (pot de 20 CUBES).")
        assert "MITTE" in alice.text and "Nachziehstapel" in alice.text
        assert "DU        verdeckt [" in alice.text and "VOUS      cachées [" in bob.text
        assert "MILIEU" in bob.text and "Pioche" in bob.text and "Défausse" in bob.text
        table = server.app.tables["schiebe"].service.table
        first = table.current
        mover = alice if first == "alice" else bob
        await mover.wait_for("[<] Links schieben" if mover is alice else "[<] Pousser à gauche")
        await mover.send("<")
        await wait_log(alice, f"{first} hat die Mitte nach links geschoben; ")
        await wait_log(bob, f"{first} a poussé le milieu vers la gauche ; ")
        await mover.send("n")
        await wait_log(alice, f"{first} hat nicht getauscht.")
        await wait_log(bob, f"{first} n'a pas échangé.")
        while server.app.tables["schiebe"].service.snapshot.view.phase.value == "playing":
            who = alice if table.current == "alice" else bob
            await who.wait_for("[N] Nicht tauschen" if who is alice else "[N] Pas d'échange")
            version = server.app.tables["schiebe"].service.snapshot.version
            await who.send("n")
            await wait_until(
                lambda: server.app.tables["schiebe"].service.snapshot.version > version)
        await alice.wait_for("RANGFOLGE des letzten Spiels")
        await bob.wait_for("CLASSEMENT FINAL de la dernière partie")
        await wait_log(alice, "Rangfolge: 1. ")
        await wait_log(bob, "Classement final : 1. ")
        assert "Final ranking" not in log(alice) + log(bob)


def test_every_count_reads_in_its_plural_form_with_1_and_2():
    """A count in a sentence goes through the catalogue's ngettext (Plural-Forms of de:
    n != 1, fr: n > 1): each rendered with 1 and 2 in every language, where the words
    around the number agree with it (no "[1 spectateurs]", "[1 schauen zu]", "dans les
    1 minute")."""
    from bbspoker.door.lobby import _menu_lines

    def event(kind, data, lang):
        return describe_event(Event(kind, "bob", data), "draw40", translator(lang))[1]

    def spectators(n, lang):
        client, _ = paint(GameView(handle="alice", cubes=10, lang=lang, watchers=n))
        return client.display[5].strip("+-")

    def menu(n, lang):
        return next(line for line in _menu_lines(translator(lang), "alice", 10, 0, n)
                    if line.startswith("  [R]"))

    cases = {
        "ahead": lambda n, lang: event("seat_wanted", {"ahead": n}, lang),
        "discard": lambda n, lang: refusal(RuleError("discard_max", max=n), "draw40",
                                                  translator(lang)),
        "grace": lambda n, lang: event("shutdown_grace", {"grace": n}, lang),
        "timeout": lambda n, lang: event("pass", {"why": "timeout", "seconds": 60 * n}, lang),
        "watching": spectators,
        "unread": menu,
    }
    expected = {
        "en": {"ahead": ("(1 player ahead of you)", "(2 players ahead of you)"),
               "discard": ("at most 1 card.", "at most 2 cards."),
               "grace": ("within 1 second;", "within 2 seconds;"),
               "timeout": ("within 1 minute and", "within 2 minutes and"),
               "watching": ("[1 watching]", "[2 watching]"),
               "unread": ("(1 unread)", "(2 unread)")},
        "de": {"ahead": ("(1 Spieler vor dir)", "(2 Spieler vor dir)"),
               "discard": ("höchstens 1 Karte tauschen.", "höchstens 2 Karten tauschen."),
               "grace": ("noch 1 Sekunde dauern;", "noch 2 Sekunden dauern;"),
               "timeout": ("innerhalb von 1 Minute gehandelt", "innerhalb von 2 Minuten "
                                                               "gehandelt"),
               "watching": ("[1 schaut zu]", "[2 schauen zu]"),
               "unread": ("(1 ungelesen)", "(2 ungelesen)")},
        "fr": {"ahead": ("(1 joueur avant vous)", "(2 joueurs avant vous)"),
               "discard": ("au plus 1 carte.", "au plus 2 cartes."),
               "grace": ("encore durer 1 seconde ;", "encore durer 2 secondes ;"),
               "timeout": ("n'a pas joué à temps (1 minute)", "n'a pas joué à temps "
                                                              "(2 minutes)"),
               "watching": ("[1 spectateur]", "[2 spectateurs]"),
               "unread": ("(1 non lu)", "(2 non lus)")},
    }
    wrong = []
    for lang in LANGUAGES:
        for name, render in cases.items():
            for n, words in zip((1, 2), expected[lang][name]):
                text = render(n, lang)
                if words not in text:
                    wrong.append(f"{lang} {name} {n}: {words!r} not in {text!r}")
    assert not wrong, "\n".join(wrong)
    # the texts of the lobby and the table entry that only the catalogue words
    for lang, singular, plural in (("de", "... und 1 weiterer", "... und 2 weitere"),
                                   ("fr", "... et 1 autre", "... et 2 autres")):
        t = translator(lang)
        assert [t.ngettext("... and {n} more", "... and {n} more", n).format(n=n)
                for n in (1, 2)] == [singular, plural]
    assert [translator("fr").ngettext("{n} watching.", "{n} watching.", n).format(n=n)
            for n in (1, 2)] == ["1 spectateur.", "2 spectateurs."]


def test_a_table_that_cannot_be_reached_is_worded_in_every_language_and_kind():
    """A gateway's table that did not answer (``table_unreachable``): a late answer says
    the move may have been made, a table nobody serves says to try again; in each
    language, at every kind's table, never the bare code."""
    from bbspoker.table.remote import TableUnreachable
    for name in KINDS:
        for lang in LANGUAGES:
            t = translator(lang)
            late = refusal(TableUnreachable("timeout", "t1"), name, t)
            gone = refusal(TableUnreachable("no_host", "t1"), name, t)
            assert late != gone and "table_unreachable" not in late + gone
            if lang == "en":
                assert "may have been made" in late and "try again" in gone
            else:
                assert late != refusal(TableUnreachable("timeout"), name, translator("en"))
