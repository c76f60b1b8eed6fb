"""A source check shared by the door's and the bots' kind tests: where a module reads
the kind's own view of a table's snapshot."""

from __future__ import annotations

import ast
import pathlib

#: What a table's snapshot holds of its kind alone: the view (and its old by-name
#: readers), which only the kind's own modules may read.
_KIND_READS = {"view", "view_as", "phase", "round", "master", "bet_ranges", "board"}


def kind_view_reads(path: pathlib.Path) -> list[str]:
    """Where the module at ``path`` reads a snapshot's kind view: ``snap.<field>`` or
    ``....snapshot.<field>`` for a field of :data:`_KIND_READS`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Attribute) and node.attr in _KIND_READS:
            base = node.value
            owner = (base.id if isinstance(base, ast.Name)
                     else base.attr if isinstance(base, ast.Attribute) else "")
            if owner in ("snap", "snapshot"):
                found.append(f"{path.name}:{node.lineno}: {owner}.{node.attr}")
    return found
