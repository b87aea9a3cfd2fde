"""Links to the curators' pages only for those who may open them (`archive.roles.may_open`).

A link that answers 403 is a dead end; the rule of who may open a page stays
in one place, and the templates ask it.
"""

from __future__ import annotations

from typing import Any

from django import template

from archive import roles

register = template.Library()


@register.filter
def may_open(user: Any, page: str) -> bool:
    """`{% if request.user|may_open:"review" %}`: whether `user` may open the curators' page `page`."""
    return roles.may_open(user, page)
