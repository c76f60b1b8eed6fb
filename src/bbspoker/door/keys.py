"""Keys from a telnet client, and a bounded line editor for chat, bet and login prompts.

The server hands :class:`KeyDecoder` the text a client sent after telnet
option processing (IAC sequences already removed, bytes already decoded).
What comes out are the few keys the door understands:
printable characters, Enter, Backspace and Esc.  Everything else a client
may send -- arrow and function keys, Ctrl-C, TAB, other controls -- produces
nothing, so it can never type text or trigger a command.

blessed's keyboard resolver works on one shared ``Terminal`` per process and
its ``LineEditor`` brings history, undo and cursor movement the game does not
show; the door needs four keys, so they are resolved here in a few lines.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from wcwidth import iter_graphemes

from bbspoker.text import char_width, display_width

__all__ = ["KeyKind", "Key", "ENTER", "BACKSPACE", "ESC", "KeyDecoder", "Edit", "LineEditor"]


class KeyKind(enum.Enum):
    """What a :class:`Key` is: a printable character or one of three editing keys."""

    CHAR = "char"
    ENTER = "enter"
    BACKSPACE = "backspace"
    ESC = "esc"


@dataclass(frozen=True, slots=True)
class Key:
    """One key press: ``kind``, and for ``KeyKind.CHAR`` the printable character in ``char``.

    ``char`` is one code point that :func:`bbspoker.text.clean_text` keeps
    (never a control or format character); it is ``""`` for the other kinds.
    """

    kind: KeyKind
    char: str = ""


ENTER = Key(KeyKind.ENTER)
BACKSPACE = Key(KeyKind.BACKSPACE)
ESC = Key(KeyKind.ESC)

# Decoder states: plain text, after CR, after ESC (not yet reported / already reported
# because it ended a feed), inside a CSI sequence, after ESC O.
_TEXT, _AFTER_CR, _AFTER_ESC, _AFTER_ESC_REPORTED, _CSI, _SS3 = range(6)
#: A CSI sequence longer than this is not a key; it is dropped up to here.
_MAX_CSI = 32


class KeyDecoder:
    """Incremental decoder: ``feed(text) -> list[Key]``, keeping state between calls.

    Rules (telnet NVT and the clients listed in the terminal notes):

    * CR LF, CR NUL, a lone CR and a lone LF are each exactly one ``ENTER``,
      also when the CR and the LF/NUL arrive in different calls.
    * BS (0x08) and DEL (0x7F) are ``BACKSPACE``.
    * ESC followed by ``[`` (CSI: parameter bytes, then a final byte
      0x40-0x7E) or by ``O`` and one character (SS3) is an arrow or function
      key and is dropped whole.  Any other ESC is an ``ESC`` key.  An ESC
      that ends a ``feed`` is reported at once (a person pressed Esc); if the
      next call begins with ``[`` or ``O`` that continues a split sequence and
      is dropped too, so a key sequence never types text.
    * Other controls (Ctrl-C, TAB, NUL, C1, format characters) are dropped.

    State is O(1): nothing is buffered, so a flood cannot grow memory here.
    """

    def __init__(self) -> None:
        self._state = _TEXT
        self._csi_len = 0

    def feed(self, data: str) -> list[Key]:
        """Decode ``data`` (any ``str``, possibly a fragment) into the keys it completes."""
        keys: list[Key] = []
        for ch in data:
            self._step(ch, keys)
        if self._state == _AFTER_ESC:
            keys.append(ESC)
            self._state = _AFTER_ESC_REPORTED
        return keys

    def _step(self, ch: str, keys: list[Key]) -> None:
        state = self._state
        self._state = _TEXT
        if state == _AFTER_CR and ch in "\n\x00":
            return
        if state in (_AFTER_ESC, _AFTER_ESC_REPORTED):
            if ch == "[":
                self._state, self._csi_len = _CSI, 0
                return
            if ch == "O":
                self._state = _SS3
                return
            if state == _AFTER_ESC:
                keys.append(ESC)
        elif state == _SS3:
            return
        elif state == _CSI:
            self._csi_len += 1
            if "\x20" <= ch <= "\x3f" and self._csi_len < _MAX_CSI:
                self._state = _CSI
                return
            if "\x40" <= ch <= "\x7e" or self._csi_len >= _MAX_CSI:
                return
            # A control inside the sequence breaks it: that character counts as typed.
        if ch == "\r":
            keys.append(ENTER)
            self._state = _AFTER_CR
        elif ch == "\n":
            keys.append(ENTER)
        elif ch in "\x08\x7f":
            keys.append(BACKSPACE)
        elif ch == "\x1b":
            self._state = _AFTER_ESC
        elif char_width(ch) >= 0:
            keys.append(Key(KeyKind.CHAR, ch))


class Edit(enum.Enum):
    """What one key did to a :class:`LineEditor`."""

    TYPING = "typing"  #: the line changed (or Backspace on an empty line); keep editing
    REFUSED = "refused"  #: the key was not taken (line full, or not a character the line accepts)
    DONE = "done"  #: Enter: the line is finished, read it from ``editor.text``
    CANCELLED = "cancelled"  #: Esc: the prompt is cancelled, ``editor.text`` is now ``""``


class LineEditor:
    """A bounded one-line editor for the chat line, the bet prompt and the login prompts.

    ``LineEditor(max_chars, max_width=None)`` holds at most ``max_chars`` code
    points and, when ``max_width`` is given, at most that many screen cells
    (so the typed text never overflows the region showing it).  Input past
    either bound is refused, never grown.  One editor serves one prompt:
    after ``Edit.DONE`` or ``Edit.CANCELLED`` make a new one.

    :meth:`press` applies one :class:`Key`: characters are appended (only
    those :func:`bbspoker.text.clean_text` keeps), Backspace removes the last
    grapheme cluster (a letter with its accents, a whole emoji), Enter
    finishes (chapter 2.7: Enter sends), Esc cancels.
    """

    def __init__(self, max_chars: int, max_width: int | None = None) -> None:
        if max_chars < 1:
            raise ValueError(f"max_chars must be at least 1, not {max_chars}")
        self.max_chars = max_chars
        self.max_width = max_width
        #: The text typed so far (the finished line after ``Edit.DONE``).
        self.text = ""

    def press(self, key: Key) -> Edit:
        """Apply one key and say what it did (see :class:`Edit`)."""
        if key.kind is KeyKind.ENTER:
            return Edit.DONE
        if key.kind is KeyKind.ESC:
            self.text = ""
            return Edit.CANCELLED
        if key.kind is KeyKind.BACKSPACE:
            self.text = "".join(list(iter_graphemes(self.text))[:-1])
            return Edit.TYPING
        if not self._fits(key.char):
            return Edit.REFUSED
        self.text += key.char
        return Edit.TYPING

    def _fits(self, ch: str) -> bool:
        width = char_width(ch)
        if len(self.text) >= self.max_chars or width < 0 or (width == 0 and not self.text):
            return False
        return self.max_width is None or display_width(self.text) + width <= self.max_width
