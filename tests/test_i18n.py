"""Issue 18, languages: the gettext catalogues (en, de, fr), the rule that user-facing texts
go through them, the labels' widths in every language, numbers grouped per language, the
[i18n] default and the lobby's [L], and a game at the draw40 table played in German and
French at once, on pyte screens."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.pofile import read_po

import bbspoker
from bbspoker.config import ConfigError, load_config
from bbspoker.door import i18n
from bbspoker.door.i18n import LANGUAGES, translator
from bbspoker.door.lobby import HELP_TEXT, _MENU
from bbspoker.door.messages import describe_event, describe_hand, refusal, round_label
from bbspoker.door.screens import draw40
from bbspoker.door.screens.regions import INFO_LABEL_WIDTH, GameView, Opponent, info_labels
from bbspoker.rules.cards import parse_cards
from bbspoker.rules.draw40.hands import evaluate
from bbspoker.rules.events import Event, RuleError
from bbspoker.text import display_width
from tests.tableplay import info, table_world
from tests.test_screen import paint

SRC = Path(bbspoker.__file__).parent
LOCALE = SRC / "door" / "locale"
PLACEHOLDER = re.compile(r"\{(\w*)[^{}]*\}")


def _code_ids() -> dict[tuple[str | None, str], tuple[str, ...]]:
    """Every message id the code under src/bbspoker uses, as Babel extracts it (the
    keywords of scripts/i18n): ``(context, msgid) -> (msgid, plural msgid ...)``."""
    ids = {}
    keywords = {**DEFAULT_KEYWORDS, **i18n.EXTRA_KEYWORDS}
    for _file, _line, message, _comments, context in extract_from_dir(
            str(SRC), [("**.py", "python")], keywords=keywords):
        forms = message if isinstance(message, tuple) else (message,)
        ids[(context, forms[0])] = forms
    return ids


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
    "door/screens/draw40.py": (("_prompt", "_watching_message"), True),
    "door/messages.py": (("describe_hand", "round_label", "seconds_text", "cards_word", "_won",
                          "_event_text", "describe_event", "refusal", "describe_stats"), False),
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
    assert (t.answer(t.yes.upper()), t.answer("y"), t.answer(t.no), t.answer("q")) == \
        (True, True, False, None)


def test_user_facing_strings_of_the_converted_modules_go_through_the_catalogue():
    """The rule: in the modules of :data:`CHECKED`, a string literal with words in it that
    reaches a person -- an argument of ``session.write``/``end``/``read_line``/
    ``ask_yes_no``/``_add_message``, a value given to a name such as ``message`` or
    ``self.error`` that a screen shows, or the return value of a describe function -- is
    wrapped in ``gettext``/``ngettext``/``pgettext`` (or marked with ``N_``/``NP_`` and
    translated where it is used). Placeholders, escape sequences and the BBS's name
    (:data:`NAMES`) are not words. A later step that converts a module adds it here."""
    offences = []
    for path, (functions, whole) in CHECKED.items():
        tree = ast.parse((SRC / path).read_text(encoding="utf-8"))
        for expr in _output_expressions(tree, functions, whole):
            for literal in _untranslated(expr):
                offences.append(f"{path}:{literal.lineno}: {literal.value!r}")
    assert not offences, "untranslated texts:\n" + "\n".join(sorted(set(offences)))


def test_no_text_is_marked_inside_an_f_string():
    """Babel's extractor does not look inside f-strings: a ``_("Seats")`` there never
    reaches a catalogue and stays English in every language (the lobby's table headings
    did). Every translating call with a literal stands outside f-strings."""
    hidden = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.JoinedStr):
                continue
            for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
                f = call.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                if name in TRANSLATING and any(isinstance(a, ast.Constant) for a in call.args):
                    hidden.append(f"{path.relative_to(SRC)}:{call.lineno}: {ast.unparse(call)}")
    assert not hidden, "translated texts inside f-strings:\n" + "\n".join(hidden)


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
    assert refusal(err, translator("de")) == "Bring zwischen 1.000 und 20.000 CUBES an diesen Tisch mit."
    assert describe_event(Event("discard", "bob", {"count": 1}), translator("fr")) == (
        "SYSTEM", "bob a rendu 1 carte.")
    assert describe_event(Event("discard", "bob", {"count": 3}), translator("de")) == (
        "SYSTEM", "bob hat 3 Karten getauscht.")


def test_the_lobby_texts_fit_the_screen_in_every_language():
    """The help and the menu lines fit 80 columns in every language."""
    for lang in LANGUAGES:
        t = translator(lang)
        assert all(display_width(line) <= 80 for line in t.gettext(HELP_TEXT).splitlines())
        assert all(display_width(f"  [{k}] {t.gettext(label)} (99 unread)") <= 79
                   for k, label in _MENU)


def test_the_table_list_and_the_stats_fit_and_line_up_in_every_language():
    """The lobby's table list rows (every game kind, every state, big stakes) and the
    [S]tats table fit 79 columns in every language; each stats heading ends where the
    numbers under it end."""
    from types import SimpleNamespace as NS

    from bbspoker.door.lobby import _table_line
    from bbspoker.door.messages import describe_stats
    rules = NS(ante=10000, min_bet=10000, max_bet=200000, small_bet=100000, seats=9)
    stats = [NS(table="red-room", played=1234, won=123, cubes_won=123456, cubes_paid=123456,
                net=-12345, biggest_pot=12345)]
    for lang in LANGUAGES:
        t = translator(lang)
        for game in ("draw40", "holdem", "schiebe"):
            for pot, seats in ((None, []), (None, [1]), (40, [1, 2])):
                entry = NS(number=99, name="A table with a long name", title="Schiebe-Poker",
                           spec=NS(game=game, rules=rules),
                           service=NS(snapshot=NS(pot=pot, seats=seats, watchers=1234)))
                assert display_width(_table_line(entry, t)) <= 79, (lang, game)
        header, row = describe_stats(stats, {"red-room": "holdem"}, t)

        def ends(line: str) -> list[int]:
            return [i for i in range(24, 79) if line[i] != " " and (i == 78 or line[i + 1] == " ")]
        assert display_width(header) == display_width(row) == 79, lang
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
        alice, bob = await connect("alice"), await connect("bob")
        await _choose_language(alice, "2", "Die Tür spricht jetzt Deutsch mit dir.")
        await _choose_language(bob, "3", "La porte vous parle maintenant en français.")
        await alice.wait_for("[P] Poker spielen: die Tische")
        await bob.wait_for("[P] Jouer au poker : les tables")
        assert server.app.ledger.language_of("alice") == "de"

        await alice.send("p")
        await alice.wait_for("Gerade spielt niemand Poker.")
        await alice.send("y")
        await alice.wait_for("[X] Spieltisch verlassen")
        await bob.send("p")
        await bob.wait_for("À la table de poker (1 places sur 5) : alice")
        await bob.send("y")
        await bob.wait_for("[X] Quitter le jeu")

        await alice.wait_for("[S] Spiel eröffnen")
        assert info(alice, "Spielleiter") == "alice" and info(alice, "Am Zug") == "KEIN SPIEL"
        assert info(alice, "Pot") == "KEIN SPIEL" and info(alice, "Runde") == "KEIN SPIEL"
        assert "Maître du jeu alice" in bob.text and info(bob, "Au tour de") == "PAS DE PARTIE"
        assert "Willkommen am Tisch, alice." in alice.text

        await alice.send("s")
        await alice.wait_for("Das Spiel ist jetzt ERÖFFNET (Pot am Anfang: 20) ...")
        await bob.wait_for("La partie est LANCÉE (pot initial : 20) ...")
        await alice.wait_for("[B] Einsatz")
        await alice.send("b")
        await alice.wait_for("Enter hält mit")
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
        await alice.wait_for("Enter hält mit")
        await alice.send("\r")
        await bob.wait_for("[H] Voir le jeu !")
        await bob.send("h")
        await bob.wait_for("Entrée suit")
        await bob.send("\r")
        await alice.wait_for("bob will die Karten sehen: jeder ist noch einmal dran.")
        await alice.wait_for("[B] Einsatz")
        await alice.send("b")
        await alice.wait_for("Enter hält mit")
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
    from tests.telnetclient import TelnetClient
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
    from tests.telnetclient import TelnetClient
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
