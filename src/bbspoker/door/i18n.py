"""The door's languages: gettext catalogues per viewer, numbers per locale.

Every sentence the door shows a player is written in English at its source and wrapped
in a call Babel's extractor knows (``t.gettext``, ``t.ngettext``, ``t.pgettext``,
``t.npgettext``, or :func:`N_` for a table of texts translated where it is used). ``t``
is the viewer's :class:`Translator`: each screen renders with its own session's, so one
event reads in German on one screen and in French on the next at the same moment.

The catalogues are ``locale/<lang>/LC_MESSAGES/bbspoker.po`` in this package (package
data; ``docs/i18n.md`` says how to extract and update them). A ``bbspoker.mo`` next to a
``.po`` and at least as new is used as it is (``pybabel compile``); otherwise the ``.po``
is compiled in memory at first use (no file is written, so a read-only install works).
The admin CLI and the logs stay English and do not use this module.
"""

from __future__ import annotations

import functools
import gettext
import io
import os
from importlib import resources
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal

__all__ = ["Translator", "translator", "of", "N_", "NP_", "EXTRA_KEYWORDS", "LANGUAGES",
           "LANGUAGE_NAMES", "DOMAIN", "ENGLISH"]

#: The languages the door speaks, as ``[i18n] default`` and the lobby's [L] name them.
LANGUAGES = ("en", "de", "fr")
#: Each language in its own words, for the lobby's [L] menu.
LANGUAGE_NAMES = {"en": "English", "de": "Deutsch", "fr": "Français"}
#: The gettext domain: the catalogues' file name.
DOMAIN = "bbspoker"


#: The extraction keywords beyond Babel's defaults (``gettext``, ``ngettext``,
#: ``pgettext``, ``npgettext``, ``N_`` ...): :func:`NP_` marks a text with its context.
#: ``scripts/i18n`` and ``tests/door/test_i18n.py`` extract with them.
EXTRA_KEYWORDS = {"NP_": ((1, "c"), 2)}


def NP_(context: str, message: str) -> tuple[str, str]:
    """Mark ``message`` with its ``context`` (:meth:`Translator.pgettext`) for extraction
    without translating it; returns ``(context, message)`` for ``t.pgettext(*pair)``."""
    return context, message


def N_(message: str) -> str:
    """Mark ``message`` for extraction without translating it (a table of texts that a
    :class:`Translator` translates where it is shown); returns it unchanged."""
    return message


class Translator:
    """One language's texts: gettext's four calls and numbers grouped the language's way.

    Build it with :func:`translator` (cached per language). ``lang`` is a code of
    :data:`LANGUAGES`. Texts a catalogue lacks come out in English (the message id).
    """

    __slots__ = ("lang", "_t", "yes", "no")

    def __init__(self, lang: str, translations: gettext.NullTranslations) -> None:
        self.lang = lang
        self._t = translations
        #: The key that answers a yes/no question "yes" in this language (``y``, ``j``,
        #: ``o``), as the questions' ``(y/n)`` shows it; lower case.
        self.yes = translations.pgettext("key answering yes", "y").lower()
        #: The key that answers "no" (``n`` in all three).
        self.no = translations.pgettext("key answering no", "n").lower()

    def gettext(self, message: str) -> str:
        """``message`` in this language (``message`` itself if untranslated)."""
        return self._t.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        """The form of ``singular``/``plural`` for the count ``n`` in this language."""
        return self._t.ngettext(singular, plural, n)

    def pgettext(self, context: str, message: str) -> str:
        """``message`` in this language, told apart by ``context`` from the same English
        words with another meaning (``"hand"`` vs ``"rank"``)."""
        return self._t.pgettext(context, message)

    def npgettext(self, context: str, singular: str, plural: str, n: int) -> str:
        """:meth:`ngettext` with a ``context`` (:meth:`pgettext`)."""
        return self._t.npgettext(context, singular, plural, n)

    def answer(self, char: str) -> bool | None:
        """What the key ``char`` (any case) answers to a yes/no question in this language:
        True for :attr:`yes`, False for :attr:`no`, None for any other key. English ``y``
        is yes in every language too: nothing else means anything there."""
        char = char.lower()
        if char == self.yes or char == "y":
            return True
        return False if char == self.no else None

    def number(self, n: int | float) -> str:
        """``n`` grouped as the language writes it: ``1,000`` (en), ``1.000`` (de),
        ``1 000`` (fr, with a no-break space, so a line is never wrapped inside it)."""
        return _number(n, self.lang)

    def __repr__(self) -> str:
        return f"Translator({self.lang!r})"


@functools.lru_cache(maxsize=4096)
def _number(n: int | float, lang: str) -> str:
    # French groups with U+202F (narrow no-break space), which few terminal fonts and no
    # 8-bit code page have: the plain no-break space (in Latin-1 and CP437) stands for it.
    return format_decimal(n, locale=lang).replace("\u202f", "\xa0")


def _catalogue(lang: str) -> gettext.NullTranslations:
    """The compiled catalogue of ``lang``: its ``.mo`` when that is up to date, else its
    ``.po`` compiled in memory. English without a catalogue: the texts as written."""
    folder = resources.files(__package__).joinpath("locale", lang, "LC_MESSAGES")
    po, mo = folder.joinpath(f"{DOMAIN}.po"), folder.joinpath(f"{DOMAIN}.mo")
    if not po.is_file():
        if lang == "en":
            return gettext.NullTranslations()
        raise LookupError(f"no catalogue for language {lang!r}")
    data: bytes | None = None
    if mo.is_file():
        try:
            # Not files on disk (a zip): compile the .po.
            if (isinstance(mo, os.PathLike) and isinstance(po, os.PathLike)
                    and os.stat(mo).st_mtime >= os.stat(po).st_mtime):
                data = mo.read_bytes()
        except OSError:
            data = None
    if data is None:
        with po.open("rb") as fh:
            catalog = read_po(fh, locale=lang, domain=DOMAIN)
        buffer = io.BytesIO()
        write_mo(buffer, catalog)
        data = buffer.getvalue()
    return gettext.GNUTranslations(io.BytesIO(data))


@functools.lru_cache(maxsize=None)
def translator(lang: str) -> Translator:
    """The :class:`Translator` of ``lang`` (one of :data:`LANGUAGES`), built at first use
    and then shared. Raises LookupError for another code."""
    if lang not in LANGUAGES:
        raise LookupError(f"unknown language {lang!r} (known: {', '.join(LANGUAGES)})")
    return Translator(lang, _catalogue(lang))


#: English, the language of the sources (and of tests that name no language).
ENGLISH = Translator("en", gettext.NullTranslations())


def of(session: Any) -> Translator:
    """The :class:`Translator` of a session (``session.language``, set at login; English
    for a session that has none, such as a test's stand-in)."""
    lang = getattr(session, "language", None)
    return translator(lang) if lang in LANGUAGES else ENGLISH
