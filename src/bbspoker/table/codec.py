"""The table's wire format: every object that crosses between a table's task and a screen
(:class:`~bbspoker.table.service.TableSnapshot`, :class:`~bbspoker.table.service.PrivateCards`,
:class:`~bbspoker.table.service.TableMessage` with its :class:`~bbspoker.rules.events.Event`,
:class:`~bbspoker.table.service.ChatMessage`, every action, and the commands and replies of
:mod:`bbspoker.table.commands`) as bytes and back: ``decode(encode(x)) == x``, of the same
type, for every game kind.

The types are dataclasses and enums; a registered type that is neither (an ``int`` of its
own: a card, a draw40 hand's value) says how it is written, ``to_wire()``, and read back,
the class method ``from_wire(value)``.

The bytes are MessagePack written and read by msgspec (typed decoding of the dataclasses
themselves: no copy of them is kept here). An encoded object is the array ``[tag, body]``:
``tag`` names its type in the :class:`WireTypes` registry (``"Bet"``, ``"TableSnapshot"``,
a kind's own ``"<kind>.<class>"``, e.g. the seat view of a kind) and ``body`` is the
dataclass as msgspec writes it (a map of its fields), read back with the type's own
annotations.

A field annotated ``Any`` (a snapshot's ``seats``, ``view`` and ``rules``, an event's
``data`` values, a refusal's figures, private ``cards``) has no type to read it by, so
what it holds is written as a MessagePack extension that carries its type: code
:data:`EXT_OBJECT` holds a whole ``[tag, body]`` again (a kind's seat view, an enum, a
card), :data:`EXT_TUPLE` and :data:`EXT_FROZENSET` a tuple and a frozenset (plain
MessagePack has lists only), :data:`EXT_TYPE` a registered class by its tag (an action
type). Lists, dicts, strings, numbers, booleans and ``None`` are written as they are.

The registry is built from the shared types of the table and the rules, and from each game
kind's own (:attr:`~bbspoker.rules.base.KindSpec.wire`, listed in
:data:`~bbspoker.rules.kinds.KINDS`): this module names no kind. Fields that are a
screen's cache (``compare=False``: a snapshot's ``by_handle``, a message's ``lines``) are
not sent; a decoded snapshot's ``by_handle`` is made again from its seats.

:func:`encode` raises :class:`CodecError` for an object of a type that is not registered
(say, :class:`~bbspoker.table.service.Direct`, whose change is a function) and
:func:`decode` raises it for bytes that are not an object of the registry (garbage,
truncated bytes, an unknown tag, a field of the wrong type), never anything else.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from collections.abc import Callable, Iterable, Mapping, MutableMapping, Sequence
from typing import Any

import msgspec

from bbspoker.rules import actions as act
from bbspoker.rules.base import KindSpec
from bbspoker.rules.cards import Card, Rank, Suit
from bbspoker.rules.events import Event, Operation
from bbspoker.table import commands
from bbspoker.table.service import (ChatMessage, Hold, PrivateCards, Return, TableMessage,
                                    TableSnapshot, WantSeat)

__all__ = ["CodecError", "WireTypes", "SHARED_TYPES", "registry", "encode", "decode",
           "EXT_OBJECT", "EXT_TUPLE", "EXT_FROZENSET", "EXT_TYPE"]

#: MessagePack extension codes of values in fields annotated ``Any`` (see the module's doc).
EXT_OBJECT, EXT_TUPLE, EXT_FROZENSET, EXT_TYPE = 1, 2, 3, 4

#: The types every table sends, whatever its kind: the table's own messages, every shared
#: action, the rules' events and the cards of the 40-card deck.
SHARED_TYPES: tuple[type, ...] = (
    TableSnapshot, PrivateCards, TableMessage, ChatMessage, Event, Operation,
    *(getattr(act, name) for name in act.__all__), Hold, Return, WantSeat,
    Card, Rank, Suit,
    *commands.WIRE_TYPES,
)

_PLAIN = (str, int, float, bool, type(None), bytes)


class CodecError(Exception):
    """What :func:`encode` and :func:`decode` raise for anything they cannot do: an object of
    a type that is not on the wire, bytes that are not an encoded object (garbage, cut
    short), an unknown tag, a field whose value does not fit its type. The message says
    which."""


# ----------------------------------------------------------------------- the registry

_Wrap = Callable[[Any], Any]


@dataclasses.dataclass(frozen=True)
class _Plan:
    """How one registered type is written: its ``tag``; the fields annotated with ``Any``
    somewhere and the function that writes each one's value (:meth:`WireTypes.wrap`);
    the cache fields reset to their default (not sent)."""

    tag: str
    untyped: tuple[tuple[str, _Wrap], ...] = ()
    reset: tuple[tuple[str, Any], ...] = ()
    #: Every field's name.
    names: tuple[str, ...] = ()


class WireTypes:
    """The registry of the types on the wire: each one's tag (:func:`encode` writes it)
    and the type of each tag (:func:`decode` reads it), from ``shared`` (tagged with their
    class name) and each kind of ``kinds`` (its :attr:`~bbspoker.rules.base.KindSpec.wire`
    types, tagged ``<kind>.<class name>``; a type already registered keeps its first tag,
    the other one is read too). Raises ``ValueError`` if two types would share a tag or a
    kind declares no wire types (``wire`` is ``None``)."""

    def __init__(self, shared: Iterable[type], kinds: Iterable[KindSpec]) -> None:
        self._tag: dict[type, str] = {}
        self._type: dict[str, type] = {}
        #: Types that are neither dataclasses nor enums (a card, a hand's value): how they
        #: are written in a typed field (their ``to_wire()``) and read back
        #: (``from_wire(value)``).
        self._custom: dict[type, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {}
        for cls in shared:
            self._add(cls.__name__, cls)
        for spec in kinds:
            if spec.wire is None:
                raise ValueError(f"game kind {spec.name!r} declares no wire types "
                                 "(KindSpec.wire)")
            for cls in spec.wire():
                self._add(f"{spec.name}.{cls.__name__}", cls)
        self._plans: dict[type, _Plan] = {}
        self._decoders: dict[type, msgspec.msgpack.Decoder[Any]] = {}
        self._enc = msgspec.msgpack.Encoder(enc_hook=self._enc_hook)
        self._head = msgspec.msgpack.Decoder(tuple[str, msgspec.Raw])
        self._untyped = msgspec.msgpack.Decoder(ext_hook=self._ext_hook)

    def _add(self, tag: str, cls: type) -> None:
        if not (dataclasses.is_dataclass(cls) or issubclass(cls, enum.Enum)):
            to, back = getattr(cls, "to_wire", None), getattr(cls, "from_wire", None)
            if to is None or back is None:
                raise ValueError(f"{cls.__qualname__} is not a dataclass or an enum and has "
                                 "no to_wire and from_wire")
            self._custom[cls] = (to, back)
        if tag in self._type and self._type[tag] is not cls:
            raise ValueError(f"two wire types tagged {tag!r}: "
                             f"{self._type[tag].__qualname__} and {cls.__qualname__}")
        self._type[tag] = cls
        self._tag.setdefault(cls, tag)

    def __contains__(self, cls: object) -> bool:
        return cls in self._tag

    def tag_of(self, cls: type) -> str:
        """The tag of registered type ``cls``. Raises :class:`CodecError`."""
        try:
            return self._tag[cls]
        except KeyError:
            raise CodecError(f"{cls.__module__}.{cls.__qualname__} is not a wire type") from None

    def type_of(self, tag: str) -> type:
        """The type tagged ``tag``. Raises :class:`CodecError`."""
        try:
            return self._type[tag]
        except (KeyError, TypeError):
            raise CodecError(f"unknown wire type tag {tag!r}") from None

    @property
    def tags(self) -> Mapping[str, type]:
        """Every tag and its type."""
        return types.MappingProxyType(self._type)

    # ------------------------------------------------------------------- writing

    def encode(self, obj: object) -> bytes:
        """``obj`` (of a registered type) as ``[tag, body]``. Raises :class:`CodecError`."""
        try:
            return self._enc.encode(self._tagged(obj))
        except CodecError:
            raise
        except Exception as err:          # msgspec.EncodeError, a hook's TypeError ...
            raise CodecError(f"cannot encode a {type(obj).__qualname__}: {err}") from err

    def _tagged(self, obj: object) -> tuple[str, object]:
        cls = type(obj)
        tag = self.tag_of(cls)
        return tag, self._prepare(obj, self._plans.get(cls) or self._plan(cls, tag))

    @staticmethod
    def _prepare(obj: Any, plan: _Plan) -> Any:
        """``obj`` with its untyped fields wrapped and its cache fields reset (itself if
        it has neither): a copy made without ``__init__``, whose checks are for real
        values, not their wire form."""
        if not (plan.untyped or plan.reset):
            return obj
        copy = object.__new__(type(obj))
        for name in plan.names:
            object.__setattr__(copy, name, getattr(obj, name))
        for name, default in plan.reset:
            object.__setattr__(copy, name, default)
        for name, wrap in plan.untyped:
            object.__setattr__(copy, name, wrap(getattr(obj, name)))
        return copy

    def _plan(self, cls: type, tag: str | None = None) -> _Plan:
        """How ``cls`` is written (registered: with its tag; else a dataclass in a typed
        field of one, ``tag`` empty)."""
        plan = self._plans.get(cls)
        if plan is not None:
            return plan
        tag = self.tag_of(cls) if tag is None else tag
        untyped: list[tuple[str, _Wrap]] = []
        reset: list[tuple[str, Any]] = []
        if dataclasses.is_dataclass(cls):
            hints = typing.get_type_hints(cls)
            for f in dataclasses.fields(cls):
                if not f.compare:
                    default = f.default_factory() if f.default_factory is not \
                        dataclasses.MISSING else f.default
                    reset.append((f.name, default))
                    continue
                wrap = self._wrapper(hints[f.name])
                if wrap is not None:
                    untyped.append((f.name, wrap))
        names = tuple(f.name for f in dataclasses.fields(cls)) \
            if dataclasses.is_dataclass(cls) else ()
        plan = self._plans[cls] = _Plan(tag, tuple(untyped), tuple(reset), names)
        return plan

    def _wrapper(self, hint: Any) -> _Wrap | None:
        """How a field annotated ``hint`` is written if ``Any`` is in it (``None``: as
        msgspec writes it): ``Any`` itself by :meth:`wrap`, a dataclass with such fields
        by its own, a tuple, list, mapping or
        optional of it element by element."""
        if hint is Any:
            return self.wrap
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            # A dataclass in a typed field (a message's event): its own untyped fields.
            plan = self._plan(hint, self._tag.get(hint, ""))
            if not (plan.untyped or plan.reset):
                return None
            return lambda v: self._prepare(v, plan)
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin in (typing.Union, types.UnionType):
            inner = [self._wrapper(a) for a in args if a is not type(None)]
            if len(inner) == 1 and inner[0] is not None:
                one = inner[0]
                return lambda v: None if v is None else one(v)
            if any(w is not None for w in inner):
                return self.wrap
            return None
        if origin in (tuple, list, set, frozenset, Sequence):
            if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
                element = self._wrapper(args[0])
                if element is None:
                    return None
                return lambda v: tuple([element(x) for x in v])
            if origin is tuple:
                parts = [self._wrapper(a) for a in args]
                if all(p is None for p in parts):
                    return None
                return lambda v: tuple(x if p is None else p(x) for p, x in zip(parts, v))
            item = self._wrapper(args[0]) if args else None
            if item is None:
                return None
            return lambda v: [item(x) for x in v]
        if origin in (dict, Mapping, MutableMapping):
            key, value = (self._wrapper(a) for a in args) if args else (None, None)
            if key is None and value is None:
                return None
            k = key or (lambda x: x)
            val = value or (lambda x: x)
            return lambda v: {k(a): val(b) for a, b in v.items()}
        return None

    def wrap(self, value: Any) -> Any:
        """``value`` of a field annotated ``Any`` as msgspec writes it with its type kept:
        plain values and lists and dicts (of wrapped values) as they are, a tuple, a
        frozenset, a registered object or class as an extension (see the module's doc).
        Raises :class:`CodecError` for a value of a type that is not on the wire."""
        cls = type(value)
        if cls in _PLAIN:
            return value
        if cls is list:
            return [self.wrap(x) for x in value]
        if cls is dict:
            return {self.wrap(k): self.wrap(v) for k, v in value.items()}
        if cls is tuple:
            return msgspec.msgpack.Ext(EXT_TUPLE, self._enc.encode([self.wrap(x) for x in value]))
        if cls is frozenset:
            return msgspec.msgpack.Ext(EXT_FROZENSET,
                                       self._enc.encode([self.wrap(x) for x in value]))
        if cls in self._tag:
            return msgspec.msgpack.Ext(EXT_OBJECT, self._enc.encode(self._tagged(value)))
        if isinstance(value, type) and value in self._tag:
            return msgspec.msgpack.Ext(EXT_TYPE, self._tag[value].encode())
        raise CodecError(f"{cls.__module__}.{cls.__qualname__} is not a wire type "
                         f"(value {value!r})")

    def _enc_hook(self, obj: Any) -> Any:
        """msgspec's hook for what it does not write itself: a registered type's
        ``to_wire()`` (a card: its notation), a registered class (its tag)."""
        custom = self._custom.get(type(obj))
        if custom is not None:
            return custom[0](obj)
        if isinstance(obj, type) and obj in self._tag:
            return self._tag[obj]
        raise CodecError(f"{type(obj).__module__}.{type(obj).__qualname__} is not a wire "
                         f"type (value {obj!r})")

    # ------------------------------------------------------------------- reading

    def decode(self, data: bytes | memoryview) -> object:
        """The object :meth:`encode` wrote. Raises :class:`CodecError`."""
        try:
            return self._read(data)
        except CodecError:
            raise
        except Exception as err:          # msgspec.DecodeError / ValidationError ...
            raise CodecError(f"not an encoded table object: {err}") from err

    def _read(self, data: bytes | memoryview) -> object:
        tag, body = self._head.decode(data)
        cls = self.type_of(tag)
        obj = self._decoder(cls).decode(body)
        if cls is TableSnapshot:
            # The screens' index of the seats (a cache, not sent): made again.
            object.__setattr__(obj, "by_handle", {s.handle.lower(): s for s in obj.seats})
        return obj

    def _decoder(self, cls: type) -> msgspec.msgpack.Decoder[Any]:
        decoder = self._decoders.get(cls)
        if decoder is None:
            decoder = self._decoders[cls] = msgspec.msgpack.Decoder(
                cls, dec_hook=self._dec_hook, ext_hook=self._ext_hook)
        return decoder

    def _ext_hook(self, code: int, data: memoryview) -> Any:
        if code == EXT_OBJECT:
            return self._read(data)
        if code == EXT_TUPLE:
            return tuple(self._untyped.decode(data))
        if code == EXT_FROZENSET:
            return frozenset(self._untyped.decode(data))
        if code == EXT_TYPE:
            return self.type_of(bytes(data).decode())
        raise CodecError(f"unknown MessagePack extension code {code}")

    def _dec_hook(self, hint: Any, obj: Any) -> Any:
        """msgspec's hook for a typed field it does not read itself: a registered type's
        ``from_wire`` (a card from its notation), an action type
        (``type[Action]``: a registered subclass by its tag)."""
        custom = self._custom.get(hint)
        if custom is not None:
            return custom[1](obj)
        if typing.get_origin(hint) is type:
            base = typing.get_args(hint)[0]
            cls = self.type_of(obj)
            if isinstance(base, type) and not issubclass(cls, base):
                raise CodecError(f"{obj!r} is not a {base.__qualname__}")
            return cls
        raise NotImplementedError(f"no wire form for {hint!r}")


@functools.cache
def registry() -> WireTypes:
    """The registry of the server's wire types: :data:`SHARED_TYPES` and every kind's of
    :data:`~bbspoker.rules.kinds.KINDS` (made at the first call: it imports each kind's
    game)."""
    from bbspoker.rules.kinds import KINDS
    return WireTypes(SHARED_TYPES, KINDS)


def encode(obj: object) -> bytes:
    """``obj`` (a snapshot, private cards, a message, an action, a command or reply of
    :mod:`bbspoker.table.commands`) as bytes, MessagePack. Raises :class:`CodecError` for
    an object that is not of a wire type (or holds one that is not)."""
    return registry().encode(obj)


def decode(data: bytes | memoryview) -> object:
    """The object :func:`encode` made ``data`` of, equal to it and of its type. Raises
    :class:`CodecError` for bytes that are not one (see the module's doc)."""
    return registry().decode(data)
