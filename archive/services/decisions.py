"""A reviewer's decision binds to exactly what they were shown.

As a review in Gerrit binds to one patch set, every approval or rejection
names the state it was made on: a pin, written into the page beside the
buttons and posted with the decision. The decision services require it of
every caller; code that decides on what it read itself computes it with
`record_pin` or `revision_pin` when it reads. A record in review is pinned by its
version and the versions of the citations shown as its evidence; a pending
revision by its own version, the published record's version and a digest of
what it publishes (its stored change and, for a merge, everything the merge
moves, which its diff lists: an edit of the duplicate changes it too). If anything changed
meanwhile the decision is refused with `StaleDecision`, which says what
changed and shows the change as it now stands; nothing is decided.

Pinning was chosen over freezing a record while it is in review: a frozen
record would stop the curators' work (a typo fixed while a reviewer is away)
and would need an unfreeze for every abandoned review, while a pin costs the
reviewer one more reading only when something really changed.

The check runs in the deciding transaction, after the record and the revision
are locked (`archive.services.review`, `archive.services.revisions`); the
database is the backstop: the record is saved with the pinned version (the
model's ``UPDATE … WHERE version = pinned``) and the revision is closed only
where its version is still the pinned one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.utils import translation
from django.utils.translation import gettext as _

from archive.models import Citation, Curated, Revision, Source
from archive.services.merges import what_moves
from archive.services.revision_display import describe


class StaleDecision(ValidationError):
    """What the reviewer was shown changed (or the decision named no state); nothing was decided."""


def _digest(parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False, sort_keys=True, default=str).encode()).hexdigest()[:16]


def evidence_of(record: Curated) -> list[Citation]:
    """The citations the queue shows with a record in review (a citation and a source show none)."""
    if isinstance(record, (Citation, Source)):
        return []
    return list(record.citations.all())  # type: ignore[attr-defined]  # every other curated record is cited


def record_pin(record: Curated, evidence: Iterable[Citation] | None = None) -> str:
    """The pin of a record in review: its version and its evidence's versions and states."""
    cited = evidence_of(record) if evidence is None else evidence
    shown = sorted((citation.pk, citation.version, citation.status) for citation in cited)
    return f"{record.version}.{_digest(shown)}"


def version_pin(version: int) -> str:
    """The pin of a record shown with no evidence (a citation, a source), from its version alone."""
    return f"{version}.{_digest([])}"


def _moves(revision: Revision) -> list[list[str]]:
    """What a merge would move now, in one language whatever the reviewer reads (empty for other changes)."""
    merge = revision.changes.get("merge")
    if not merge:
        return []
    model = revision.record_model
    survivor = model._default_manager.filter(pk=revision.record_id).order_by().first()
    duplicate = model._default_manager.filter(pk=merge.get("duplicate")).first()
    if survivor is None or duplicate is None:
        return []
    with translation.override("en"):
        return [[str(part) for part in row] for row in what_moves(survivor, duplicate)]


def revision_pin(revision: Revision, record_version: int | None = None) -> str:
    """The pin of a pending revision: its version, the published record's version, a digest of what it publishes.

    The digest covers the stored change and, for a merge, everything the merge
    would move, so that it does not depend on the language of the page.
    `record_version` is the published record's version the reader saw; without
    it, the version stored now (a caller that reads the record itself).
    """
    if record_version is None:
        record = revision.record()
        if record is None:
            raise ValidationError(_("%(record)s no longer exists.") % {"record": revision.record_label})
        record_version = record.version
    return f"{revision.version}.{record_version}.{_digest([revision.changes, _moves(revision)])}"


def _unpinned(what: str) -> StaleDecision:
    return StaleDecision(
        _(
            "The decision on %(record)s names no version of what was read, so nothing was decided. "
            "Read it again as the review queue now shows it and decide again."
        )
        % {"record": what},
        code="stale",
    )


def check_record(record: Curated, shown: str) -> int:
    """Refuse a decision on `record` (as stored now) made on another state; the pinned version if not."""
    version_text, _sep, digest = (shown or "").partition(".")
    if not version_text.isdigit() or not digest:
        raise _unpinned(str(record))
    pinned = int(version_text)
    changed = []
    if pinned != record.version:
        who = record.modified_by.get_username() if record.modified_by else _("unknown")
        changed.append(
            _("it was edited by %(who)s after you read it (version %(shown)s, now %(now)s)")
            % {"who": who, "shown": pinned, "now": record.version}
        )
    elif record_pin(record) != shown:
        changed.append(_("its evidence changed after you read it (a citation was edited, added or decided)"))
    if changed:
        raise StaleDecision(
            _("Nothing was decided on %(record)s: %(what)s. The review queue now shows it as it is; read it again.")
            % {"record": record, "what": "; ".join(changed)},
            code="stale",
        )
    return pinned


def check_revision(revision: Revision, record: Curated, shown: str) -> None:
    """Refuse a decision on `revision` (locked, as stored now) made on another state of it or its record."""
    parts = (shown or "").split(".")
    if len(parts) != 3 or not parts[0].isdigit() or not parts[1].isdigit():
        raise _unpinned(revision.record_label)
    pinned_revision, pinned_record = int(parts[0]), int(parts[1])
    changed = []
    if pinned_revision != revision.version:
        changed.append(
            _("the change was edited after you read it (revision version %(shown)s, now %(now)s)")
            % {"shown": pinned_revision, "now": revision.version}
        )
    if pinned_record != record.version:
        changed.append(
            _("the published record changed (version %(shown)s, now %(now)s)")
            % {"shown": pinned_record, "now": record.version}
        )
    if not changed and revision_pin(revision, record.version) != shown:
        changed.append(_("what it publishes changed after you read it (a record it moves or names was edited)"))
    if changed:
        diff = "; ".join(f"{row.label}: “{row.old}” → “{row.new}”" for row in describe(revision)) or _("no change")
        raise StaleDecision(
            _("Nothing was decided on the change of %(record)s: %(what)s. It now proposes: %(diff)s.")
            % {"record": revision.record_label, "what": "; ".join(changed), "diff": diff},
            code="stale",
        )
