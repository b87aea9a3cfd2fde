"""The threads of a page's items, read once for the page, and the one of an item by its key."""

from __future__ import annotations

from typing import Any

from django import template

from archive.admin.discussion import subject_key, thread_for
from archive.services import discussion

register = template.Library()


@register.simple_tag(takes_context=True)
def threads_of(context: Any, sections: Any) -> dict[str, Any]:
    """The threads of every record and change on a page of the review queue, by key, in one query."""
    subjects = []
    for section in sections or ():
        for line in section.entries:
            row = line["row"]
            if row is not None:
                subjects.append(getattr(row, "revision", None) or row.record)
    found = discussion.threads(subjects)
    user = context["request"].user
    return {subject_key(subject): thread_for(subject, user, found) for subject in subjects}


@register.filter
def thread(threads: dict[str, Any], key: str) -> Any:
    return threads.get(key) if threads else None
