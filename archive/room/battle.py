"""The order of battle: units as a tree, each with its commanders' posts and their citations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from archive import dating
from archive.models import Unit
from archive.models.registry import FictionMode
from archive.room.records import Records
from archive.room.stated import stated_value


def _end(value: str) -> str:
    opened = dating.open_end(value)
    if opened is None:
        return value
    side, day = opened
    return _("on or before %(day)s") % {"day": day} if side == "before" else _("on or after %(day)s") % {"day": day}


def held_words(date_from: str, date_to: str) -> str:
    """When a post was held, as a reader reads it: `undated` where no source dates it, `held on …` where a
    source says only that it was held on a day (it began on or before it and ended on or after it)."""
    if not date_from and not date_to:
        return _("undated")
    before, after = dating.open_end(date_from), dating.open_end(date_to)
    if before and after and before == ("before", after[1]) and after[0] == "after":
        return _("held on %(day)s") % {"day": after[1]}
    return f"{_end(date_from) or '?'} – {_end(date_to) or '?'}"


@dataclass
class CommandPost:
    post: Any
    title: str
    date_from: str
    date_to: str
    citations: list[dict[str, Any]]

    @property
    def when(self) -> str:
        return held_words(self.date_from, self.date_to)


@dataclass
class Node:
    unit: Unit
    posts: list[CommandPost]
    children: list[Node] = field(default_factory=list)


def _value(post: Any, mode: FictionMode, name: str) -> str:
    accounts = stated_value(post, mode, name)
    if accounts is None:
        return str(getattr(post, name))
    return accounts[0].value if accounts else ""


def command_posts(unit: Unit, mode: FictionMode, records: Records) -> list[CommandPost]:
    posts = getattr(unit, "visible_posts", [])
    return [
        CommandPost(post, _value(post, mode, "title"), _value(post, mode, "date_from"), _value(post, mode, "date_to"),
                    [{"citation": c, "url": records.citation_link(c, mode)} for c in post.visible_citations])
        for post in posts
    ]


@dataclass
class Line:
    """One unit of the tree as the page writes it, in reading order: its depth, and the branches it ends."""

    node: Node
    depth: int
    # Ancestors' lists closed after this unit: a leaf may end its parent's list and the lists above it.
    ends: range


def lines(roots: list[Node]) -> list[Line]:
    """The tree flattened in reading order, walked with a stack: no recursion, however deep the units nest."""
    order: list[tuple[Node, int]] = []
    stack = [(root, 0) for root in reversed(roots)]
    while stack:
        node, depth = stack.pop()
        order.append((node, depth))
        stack.extend((child, depth + 1) for child in reversed(node.children))
    written = []
    for index, (node, depth) in enumerate(order):
        following = order[index + 1][1] if index + 1 < len(order) else 0
        ends = range(depth - following) if not node.children else range(0)
        written.append(Line(node, depth, ends))
    return written


def tree(mode: FictionMode, records: Records) -> list[Node]:
    """Every visible unit under its visible parent; a unit whose parent is hidden is a root."""
    units = records.units(mode)
    nodes = {unit.pk: Node(unit, command_posts(unit, mode, records)) for unit in units}
    roots = []
    for unit in units:
        parent = nodes.get(unit.parent_id) if unit.parent_id is not None else None
        if parent is None or parent is nodes[unit.pk]:
            roots.append(nodes[unit.pk])
        else:
            parent.children.append(nodes[unit.pk])
    return roots
