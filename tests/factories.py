"""Small builders of records for tests.

`approved(record)` moves a record through the real review transitions with
two distinct users, so tests never bypass the four-eyes rule by accident.
"""

from __future__ import annotations

import itertools
from typing import Any

from django.contrib.auth.models import User

from archive.models import Citation, Passage, Source, Status
from archive.services import decisions
from archive.services import review as curation
from archive.text.segment import sha256_text, split_passages

_counter = itertools.count(1)
NO_EVIDENCE = "built by a test without citations"


def user(name: str | None = None, *, role: str | None = None, **extra: Any) -> User:
    from django.contrib.auth.models import Group

    name = name or f"user{next(_counter)}"
    account = User.objects.create_user(username=name, password="pw-" + name, is_staff=True, **extra)
    if role:
        account.groups.add(Group.objects.get(name=role))
    return account


def reviewer_pair() -> tuple[User, User]:
    return user(role="curator"), user(role="reviewer")


def approved(record: Any, *, author: User | None = None, reviewer: User | None = None) -> Any:
    """Save `record` (if new), submit it and approve it by another user."""
    author = author or User.objects.filter(username="factory-author").first() or user("factory-author", role="curator")
    reviewer = (
        reviewer
        or User.objects.filter(username="factory-reviewer").first()
        or user("factory-reviewer", role="reviewer")
    )
    if record.pk is None:
        record.created_by = author
        record.modified_by = author
        record.status = Status.DRAFT
        record.save()
    if record.status != Status.IN_REVIEW:
        curation.submit(record, by=author)
    # Records built for a test rarely carry citations; the rule that evidence
    # comes first is tested on its own (tests/services/test_review.py).
    return curation.approve(record, by=reviewer, without_evidence=NO_EVIDENCE, shown=decisions.record_pin(record))


def publish_change(record: Any, **changes: Any) -> Any:
    """Change a published record as the archive does: a revision, approved by another person."""
    from archive.services import records, revisions

    author = User.objects.filter(username="factory-editor").first() or user("factory-editor", role="curator")
    reviewer = (
        User.objects.filter(username="factory-reviewer").first() or user("factory-reviewer", role="reviewer")
    )
    fresh = type(record)._default_manager.get(pk=record.pk)
    for name, value in changes.items():
        setattr(fresh, name, value)
    revision = records.record_update(record=fresh, by=author)
    if revision is not None:
        revisions.approve_revision(revision=revision, by=reviewer, shown=decisions.revision_pin(revision))
    return type(record)._default_manager.get(pk=record.pk)


def in_status(record: Any, status: str) -> Any:
    """Bring a new record to `status` through the transitions."""
    if status == Status.APPROVED:
        return approved(record)
    author = User.objects.filter(username="factory-author").first() or user("factory-author", role="curator")
    reviewer = User.objects.filter(username="factory-reviewer").first() or user("factory-reviewer", role="reviewer")
    record.created_by = author
    record.modified_by = author
    record.status = Status.DRAFT
    record.save()
    if status == Status.DRAFT:
        return record
    curation.submit(record, by=author)
    if status == Status.REJECTED:
        curation.reject(record, by=reviewer, note="not in the source", shown=decisions.record_pin(record))
    return record


def source_with_text(
    text: str,
    *,
    slug: str | None = None,
    kind: str = "history",
    status: str = Status.APPROVED,
    language: str = "zh-Hans",
) -> Source:
    """A source whose passages are made by the real segmenter."""
    slug = slug or f"source-{next(_counter)}"
    source = Source(
        slug=slug,
        title=f"Title {slug}",
        kind=kind,
        language=language,
        text=text,
        sha256=sha256_text(text),
        file_name=f"{slug}.txt",
    )
    source = in_status(source, status)
    Passage.objects.bulk_create(
        Passage(source=source, seq=s.seq, text=s.text, start=s.start, end=s.end, sha256=sha256_text(s.text))
        for s in split_passages(text)
    )
    return source


def cite(
    passage: Passage, quote: str, *, status: str = Status.APPROVED, claim: str = "says so", **target: Any
) -> Citation:
    start = passage.text.index(quote)
    citation = Citation(passage=passage, quote=quote, start=start, end=start + len(quote), claim=claim, **target)
    return in_status(citation, status)
