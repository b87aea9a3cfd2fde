"""The order of battle: units as a tree, each with its commanders' posts and their citations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from archive import selectors
from archive.models import Unit
from archive.models.registry import FictionMode
from archive.room.links import citation_url
from archive.room.stated import stated_value


@dataclass
class CommandPost:
    post: Any
    title: str
    date_from: str
    date_to: str
    citations: list[dict[str, Any]]


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


def command_posts(unit: Unit, mode: FictionMode) -> list[CommandPost]:
    posts = getattr(unit, "visible_posts", [])
    return [
        CommandPost(post, _value(post, mode, "title"), _value(post, mode, "date_from"), _value(post, mode, "date_to"),
                    [{"citation": c, "url": citation_url(c, mode)} for c in post.visible_citations])
        for post in posts
    ]


def tree(mode: FictionMode) -> list[Node]:
    """Every visible unit under its visible parent; a unit whose parent is hidden is a root."""
    units = list(selectors.filter_fiction(selectors.units(mode), mode).order_by("name", "slug"))
    nodes = {unit.pk: Node(unit, command_posts(unit, mode)) for unit in units}
    roots = []
    for unit in units:
        parent = nodes.get(unit.parent_id) if unit.parent_id is not None else None
        if parent is None or parent is nodes[unit.pk]:
            roots.append(nodes[unit.pk])
        else:
            parent.children.append(nodes[unit.pk])
    return roots
