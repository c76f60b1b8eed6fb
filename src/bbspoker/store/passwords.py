"""Password hashing for handles: ``hashlib.scrypt`` (memory-hard) with a per-user salt.

A stored hash is one ASCII string that carries its own parameters, so they
can be raised later without invalidating old hashes::

    scrypt$16384$8$1$<salt, base64>$<key, base64>

(``n``, ``r``, ``p``, then a random 16-byte salt and the 32-byte derived key).
Hashing costs about 16 MiB and tens of milliseconds on purpose: the server
calls :func:`hash_password` and :func:`verify_password` in a worker thread,
never on the event loop. Neither the password, the salt nor the hash is ever
logged.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
import unicodedata

__all__ = ["hash_password", "verify_password", "validate_password",
           "MIN_PASSWORD_LENGTH", "MAX_PASSWORD_LENGTH"]

_N, _R, _P = 2**14, 8, 1
_SALT_BYTES = 16
_KEY_BYTES = 32
_MAXMEM = 64 * 1024 * 1024
_SCHEME = "scrypt"

#: Shortest and longest password accepted by :func:`validate_password` (characters).
MIN_PASSWORD_LENGTH = 4
MAX_PASSWORD_LENGTH = 128


class InvalidPassword(ValueError):
    """A password :func:`validate_password` refuses. ``code`` says why (``short``,
    ``long``, ``control``, ``spaces``), ``data`` the numbers in it (``n``); ``str()`` is
    the English (the admin CLI), the door shows ``code`` in the user's language."""

    def __init__(self, code: str, message: str, **data: int) -> None:
        super().__init__(message)
        self.code, self.data = code, data


def validate_password(password: str) -> str:
    """Check a new password typed by a user or the sysop and return it unchanged.

    Rule: 4-128 characters, no control characters (a telnet client cannot
    type them reliably), not only spaces. Raises :class:`InvalidPassword` (a
    ``ValueError``) with a message fit to show the user; the message never contains the
    password.
    """
    if len(password) < MIN_PASSWORD_LENGTH:
        raise InvalidPassword("short", f"password too short: use at least "
                              f"{MIN_PASSWORD_LENGTH} characters", n=MIN_PASSWORD_LENGTH)
    if len(password) > MAX_PASSWORD_LENGTH:
        raise InvalidPassword("long", f"password too long: use at most "
                              f"{MAX_PASSWORD_LENGTH} characters", n=MAX_PASSWORD_LENGTH)
    if not password.isprintable():
        raise InvalidPassword("control", "password contains control characters")
    if not password.strip():
        raise InvalidPassword("spaces", "a password may not be only spaces")
    return password


def _derive(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p,
                          maxmem=_MAXMEM, dklen=_KEY_BYTES)


def _nfc(password: str) -> str:
    """The password as hashed: Unicode NFC, so that ``é`` typed as one character or as
    ``e`` and a combining accent is the same password."""
    return unicodedata.normalize("NFC", password)


def hash_password(password: str) -> str:
    """Hash ``password`` with scrypt and a fresh random salt; returns the string to store.

    Two calls with the same password give different strings (different salts).
    Slow on purpose (tens of ms, 16 MiB): call it off the event loop.
    """
    salt = secrets.token_bytes(_SALT_BYTES)
    key = _derive(_nfc(password), salt, _N, _R, _P)
    b64 = lambda raw: base64.b64encode(raw).decode("ascii")  # noqa: E731
    return f"{_SCHEME}${_N}${_R}${_P}${b64(salt)}${b64(key)}"


def verify_password(stored: str, password: str) -> bool:
    """True if ``password`` matches ``stored`` (a string from :func:`hash_password`).

    The derived keys are compared in constant time (``hmac.compare_digest``).
    A malformed or foreign ``stored`` string gives ``False``, never an exception.
    Slow on purpose: call it off the event loop.
    """
    try:
        scheme, n, r, p, salt_b64, key_b64 = stored.split("$")
        if scheme != _SCHEME:
            return False
        salt = base64.b64decode(salt_b64, validate=True)
        key = base64.b64decode(key_b64, validate=True)
        candidate = _derive(_nfc(password), salt, int(n), int(r), int(p))
        if not hmac.compare_digest(candidate, key) and _nfc(password) != password:
            # A hash made before passwords were normalised: the password as typed.
            candidate = _derive(password, salt, int(n), int(r), int(p))
    except (ValueError, binascii.Error):
        return False
    return hmac.compare_digest(candidate, key)
