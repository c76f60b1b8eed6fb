"""The door's prompts: a line editor prompt, the one yes/no question, "press any key".

Every prompt takes a ``timeout`` (seconds without a key; ``None`` waits for ever) and
raises ``TimeoutError`` when it passes, :class:`~bbspoker.door.terminal.SessionClosed`
when the connection ends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bbspoker.door import i18n
from bbspoker.door.keys import Edit, KeyKind, LineEditor

if TYPE_CHECKING:
    from bbspoker.door.terminal import Terminal

__all__ = ["read_line", "ask_yes_no", "press_any_key"]


async def read_line(session: Terminal, prompt: str, *, max_chars: int,
                    max_width: int | None = None, hidden: bool = False,
                    timeout: float | None = None) -> str:
    """Show ``prompt`` (one line, no CR/LF) and read one line with :class:`bbspoker.door.keys.LineEditor`.

    Echoes what is typed (nothing when ``hidden``: passwords), Backspace
    works. Returns the line on Enter, ``""`` on Esc (callers take it as
    "cancelled"). Raises :class:`SessionClosed` or ``TimeoutError`` (no key
    for ``timeout`` s).
    """
    editor = LineEditor(max_chars, max_width)
    session.write(prompt)
    while True:
        edit = editor.press(await session.read_key(timeout))
        if edit in (Edit.DONE, Edit.CANCELLED):
            session.write("\r\n")
            return editor.text
        if edit is Edit.TYPING and not hidden:
            session.write(f"\r{prompt}{editor.text}{session.term.clear_eol}")


async def ask_yes_no(session: Terminal, question: str, timeout: float | None = None) -> bool:
    """Show ``question`` and wait for the session's language's yes or no key (``y``/``n``,
    ``j``/``n``, ``o``/``n``; any case; other keys do nothing): :meth:`Translator.answer`."""
    t = i18n.of(session)
    session.write(question + " ")
    while True:
        key = await session.read_key(timeout)
        answer = t.answer(key.char) if key.kind is KeyKind.CHAR else None
        if answer is not None:
            session.write((t.yes if answer else t.no) + "\r\n")
            return answer


async def press_any_key(session: Terminal, timeout: float | None) -> None:
    """Show ``Press any key`` and wait for one."""
    session.write("\r\n" + i18n.of(session).gettext("[Press any key]"))
    await session.read_key(timeout)
