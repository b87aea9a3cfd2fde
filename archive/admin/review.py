"""The review queue: everything in review, with the evidence to judge it.

A reviewer decides on a record by reading the words it rests on, so every
record is shown with its citations inside their whole passages (the quote
marked), the source and its kind named and fiction flagged. A record never
published that has no approved citation is flagged before approval: approving
it takes a note saying why it goes public without evidence.

A change of a published record waits as a pending revision: the queue shows
it field by field against the approved version, each value diffed word by
word (a Chinese character is a word), beside the record's approved evidence.

Decisions go through the services (`archive.services.review` for records,
`archive.services.revisions` for changes), which hold the four-eyes rule; the
queue only reads the same rule in advance to say why there are no buttons,
and turns every refusal into a message, never a server error. Its query count
depends on the models in review, not on the number of records or revisions.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models
from django.db.models import Count, Prefetch
from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from archive.models import (
    TARGET_FIELDS,
    Batch,
    Citation,
    Curated,
    Event,
    Location,
    Participation,
    Post,
    Rank,
    Revision,
    Source,
    SourceKind,
    Statement,
    Status,
    Unit,
)
from archive.models.registry import CURATED_MODELS
from archive.services import bulk, decisions, revisions
from archive.services import review as curation
from archive.text.numbers import whole_number

from . import review_queue
from .reader import (
    CITATION_RELATED,
    admin_change_url,
    admin_context,
    passage_url,
    passage_with_quote,
    target_label,
)

# The queue's groups, in the order a reviewer meets them: what is cited
# before the citations that rest on it.
QUEUE_MODELS: tuple[type[Curated], ...] = CURATED_MODELS

_RELATED: dict[type[models.Model], tuple[str, ...]] = {
    Unit: ("parent",),
    Location: ("parent",),
    Event: ("parent",),
    Post: ("person", "unit"),
    Participation: ("event", "person", "unit"),
    Citation: ("passage__source", *CITATION_RELATED),
    Statement: (
        "event", "person", "location", "post__person", "post__unit",
        "participation__event", "participation__person", "participation__unit",
    ),
}

_MODELS_BY_NAME: dict[str, type[Curated]] = {model._meta.label_lower.split(".")[1]: model for model in QUEUE_MODELS}



@dataclass
class Evidence:
    citation: Citation
    html: SafeString
    url: str

    # The labels of its choices, read from the enums: a model's get_FOO_display
    # translates every label of the field to find one, for each row of the page.
    @property
    def source_kind(self) -> str:
        return _label(SourceKind, self.citation.passage.source.kind)

    @property
    def status_label(self) -> str:
        return _label(Status, self.citation.status)

    @property
    def rank_label(self) -> str:
        return _label(Rank, self.citation.rank)


def _label(choices: type[models.TextChoices], value: str) -> str:
    try:
        return str(choices(value).label)
    except ValueError:
        return value  # a value the choices no longer hold is shown as stored


@dataclass
class Row:
    key: str
    record: Curated
    change_url: str | None
    reason: str | None
    evidence: list[Evidence] = field(default_factory=list)
    accounts_url: str | None = None
    target: str = ""
    # Published only with a note: a kind of record that needs evidence, and none approved.
    without_evidence: bool = False
    # The state the reviewer reads, posted with the decision (`archive.services.decisions`).
    pin: str = ""

    @property
    def can_review(self) -> bool:
        return self.reason is None


@dataclass
class DiffLine:
    label: str
    old: SafeString
    new: SafeString


@dataclass
class RevisionRow:
    key: str
    revision: Revision
    change_url: str | None
    reason: str | None
    lines: list[DiffLine]
    contributors: list[Any]
    evidence: list[Evidence] = field(default_factory=list)
    # The record as published (None once a deletion or merge removed it).
    record: Any = None
    # The state the reviewer reads, posted with the decision (`archive.services.decisions`).
    pin: str = ""

    @property
    def can_review(self) -> bool:
        return self.reason is None

    @property
    def names(self) -> str:
        return ", ".join(person.get_username() for person in self.contributors)


def record_key(record: models.Model) -> str:
    return f"{record._meta.model_name}-{record.pk}"


# ---------------------------------------------------------------------------
# Word diff


# A CJK character is a word of its own; other letters and digits run into words.
_CJK = "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003ffff"
_TOKEN = re.compile(rf"[{_CJK}]|(?:(?![{_CJK}])\w)+|\s+|.", re.DOTALL)
# Beyond this many words a side, a changed stretch is matched line by line
# first: matching two long texts word by word grows with the square of their
# length (a second for some 4,000 words) and would hold the request.
_WORD_LIMIT = 2_000


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _opcodes(a: list[str], b: list[str]) -> Sequence[tuple[str, int, int, int, int]]:
    # No autojunk: in a long text, spaces and common characters are words like any other.
    return SequenceMatcher(None, a, b, autojunk=False).get_opcodes()


def _matched(a: list[str], b: list[str]) -> Iterator[tuple[bool, str, str]]:
    """(equal?, old text, new text) pieces of two token lists, matched word by word where they are short enough."""
    if len(a) <= _WORD_LIMIT and len(b) <= _WORD_LIMIT:
        for op, i1, i2, j1, j2 in _opcodes(a, b):
            yield op == "equal", "".join(a[i1:i2]), "".join(b[j1:j2])
        return
    old_lines = "".join(a).splitlines(keepends=True)
    new_lines = "".join(b).splitlines(keepends=True)
    for op, i1, i2, j1, j2 in _opcodes(old_lines, new_lines):
        old, new = "".join(old_lines[i1:i2]), "".join(new_lines[j1:j2])
        if op == "equal":
            yield True, old, new
            continue
        ta, tb = tokens(old), tokens(new)
        if op == "replace" and len(ta) <= _WORD_LIMIT and len(tb) <= _WORD_LIMIT:
            yield from _matched(ta, tb)
        else:
            yield False, old, new


def word_diff(old: str, new: str) -> tuple[SafeString, SafeString]:
    """The published and the proposed text as HTML: deleted words in <del>, inserted ones in <ins>."""
    a, b = tokens(old), tokens(new)
    # The common start and end first: most edits touch a few words of a long text.
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    pieces = [
        (True, "".join(a[:head]), "".join(b[:head])),
        *_matched(a[head : len(a) - tail], b[head : len(b) - tail]),
        (True, "".join(a[len(a) - tail :]), "".join(b[len(b) - tail :])),
    ]
    old_parts: list[str] = []
    new_parts: list[str] = []
    for equal, removed, added in pieces:
        if equal:
            old_parts.append(escape(removed))
            new_parts.append(escape(added))
            continue
        if removed:
            old_parts.append(f"<del>{escape(removed)}</del>")
        if added:
            new_parts.append(f"<ins>{escape(added)}</ins>")
    return mark_safe("".join(old_parts)), mark_safe("".join(new_parts))  # every piece escaped above


# ---------------------------------------------------------------------------
# Four eyes, read in advance


def _may_review(model: type[models.Model], user: Any) -> bool:
    opts = model._meta
    return bool(user.is_superuser or user.has_perm(f"{opts.app_label}.review_{opts.model_name}"))


def record_contributors(model: type[models.Model], records: Iterable[Curated]) -> dict[Any, set[int]]:
    """`archive.services.review.contributors` of many records of `model`, from one history query."""
    return curation.contributors_of_many(model, records)  # type: ignore[arg-type]  # every queue model is curated


def why_not(record: Curated, user: Any, contributors: set[int] | None = None) -> str | None:
    """Why `user` may not review `record`, or None when they may."""
    if contributors is None:
        contributors = curation.contributors(record)
    may = _may_review(type(record), user)
    if may and user.pk not in contributors:
        return None
    if user.pk == record.created_by_id:
        return _("You created this record: another reviewer must approve or reject it.")
    if user.pk == record.modified_by_id:
        return _("You changed this record last: another reviewer must approve or reject it.")
    if user.pk in contributors:
        return _("You contributed to this record: another reviewer must approve or reject it.")
    return _("You are not allowed to review %(things)s.") % {"things": record._meta.verbose_name_plural}


def why_not_revision(revision: Revision, user: Any, contributors: set[int]) -> str | None:
    """Why `user` may not decide on `revision`: `revisions.can_decide`, read from prefetched contributors."""
    if user.pk in contributors:
        return _("You contributed to this change: another reviewer must approve or reject it.")
    if not _may_review(revision.record_model, user):
        return _("You are not allowed to review %(things)s.") % {
            "things": revision.record_model._meta.verbose_name_plural
        }
    return None


# ---------------------------------------------------------------------------
# Records in review


def _evidence(citation: Citation) -> Evidence:
    html = passage_with_quote(citation.passage, citation.start, citation.end, css="queue-quote")
    return Evidence(citation, html, passage_url(citation.passage))


def _event_of(record: models.Model) -> Event | None:
    if isinstance(record, Event):
        return record
    if isinstance(record, Participation):
        return record.event
    if isinstance(record, Citation):
        if record.event_id:
            return record.event
        if (participation := record.participation) is not None:
            return participation.event
    return None


def _cited() -> models.QuerySet[Citation]:
    return Citation.objects.select_related("passage__source").order_by("passage__source__title", "passage__seq")


def _queryset(model: type[Curated], pks: list[int] | None = None) -> models.QuerySet[Any]:
    qs = model.objects.filter(status=Status.IN_REVIEW)
    if pks is not None:
        qs = qs.filter(pk__in=pks)
    qs = qs.select_related(
        "created_by", "modified_by", *_RELATED.get(model, ())
    )
    if model is Source:
        return qs.annotate(passage_count=Count("passages")).order_by("title", "pk")
    if model is Citation:
        return qs.order_by("passage__source__title", "passage__seq", "start", "pk")
    return qs.prefetch_related(Prefetch("citations", queryset=_cited())).order_by("pk")


def queue_groups(user: Any, only: dict[str, list[int]] | None = None) -> list[dict[str, Any]]:
    """The records in review (those of `only`, by model name, if given), grouped by model, each with its evidence."""
    groups = []
    for model in QUEUE_MODELS:
        if only is not None and not only.get(str(model._meta.model_name)):
            continue
        records = list(_queryset(model, None if only is None else only[str(model._meta.model_name)]))
        contributors = record_contributors(model, records)
        rows = []
        for record in records:
            event = _event_of(record)
            row = Row(
                key=record_key(record),
                record=record,
                change_url=admin_change_url(record),
                reason=why_not(record, user, contributors[record.pk]),
                accounts_url=reverse("archive_curate:accounts", args=[event.slug]) if event else None,
            )
            cited: list[Citation] = []
            if isinstance(record, Citation):
                row.evidence = [_evidence(record)]
                row.target = target_label(record)
            elif not isinstance(record, Source):
                cited = list(record.citations.all())
                row.evidence = [_evidence(c) for c in cited]
                row.without_evidence = curation.needs_evidence(record) and not any(
                    c.status == Status.APPROVED for c in cited
                )
            row.pin = decisions.record_pin(record, cited)
            rows.append(row)
        if rows:
            groups.append({"name": model._meta.verbose_name_plural, "model": model._meta.model_name, "rows": rows})
    return groups


# ---------------------------------------------------------------------------
# Changes of published records


def _revision_change_url(model: type[models.Model], pk: Any) -> str | None:
    try:
        return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_change", args=[pk])
    except NoReverseMatch:
        return None


def _revision_evidence(model: type[models.Model], pks: list[Any]) -> dict[Any, list[Evidence]]:
    """The approved citations of published records of `model`, by record pk (a citation is its own evidence)."""
    found: dict[Any, list[Evidence]] = defaultdict(list)
    if model is Citation:
        for citation in Citation.objects.filter(pk__in=pks).select_related("passage__source"):
            found[citation.pk].append(_evidence(citation))
        return found
    name = model._meta.model_name
    if name not in TARGET_FIELDS:
        return found
    for citation in _cited().filter(status=Status.APPROVED, **{f"{name}__in": pks}):
        found[getattr(citation, f"{name}_id")].append(_evidence(citation))
    return found


def revision_groups(user: Any, only: list[int] | None = None) -> list[dict[str, Any]]:
    """The pending revisions (those of `only`, if given), by model, each as a word diff beside the evidence."""
    if only is not None and not only:
        return []
    chosen = Revision.objects.pending() if only is None else Revision.objects.pending().filter(pk__in=only)
    pending = list(
        chosen
        .select_related("record_type", "created_by")
        .prefetch_related("contributors")
        .order_by("record_label", "pk")
    )
    if not pending:
        return []
    described = revisions.describe_many(pending)
    by_model: dict[type[models.Model], list[Revision]] = defaultdict(list)
    for revision in pending:
        by_model[revision.record_model].append(revision)
    order: dict[type[models.Model], int] = {model: n for n, model in enumerate(QUEUE_MODELS)}
    groups = []
    for model in sorted(by_model, key=lambda m: (order.get(m, len(order)), m._meta.model_name)):
        mine = by_model[model]
        pks = [revision.record_id for revision in mine]
        evidence = _revision_evidence(model, pks)
        published = {
            record.pk: record
            for record in model._default_manager.filter(pk__in=pks).select_related(*_RELATED.get(model, ()))
        }
        rows = []
        for revision in mine:
            people = sorted(
                {u.pk: u for u in [*revision.contributors.all(), revision.created_by] if u is not None}.values(),
                key=lambda u: u.get_username(),
            )
            lines = []
            for diff in described[revision.pk]:
                old, new = word_diff(diff.old, diff.new)
                lines.append(DiffLine(diff.label, old, new))
            record = published.get(revision.record_id)
            version = record.version if isinstance(record, Curated) else 0
            rows.append(
                RevisionRow(
                    key=f"revision-{revision.pk}",
                    revision=revision,
                    change_url=_revision_change_url(model, revision.record_id),
                    reason=why_not_revision(revision, user, {u.pk for u in people}),
                    lines=lines,
                    contributors=people,
                    evidence=evidence.get(revision.record_id, []),
                    record=record,
                    pin=decisions.revision_pin(revision, version),
                )
            )
        groups.append({"name": model._meta.verbose_name_plural, "model": model._meta.model_name, "rows": rows})
    return groups


# ---------------------------------------------------------------------------
# The page: the index's entries, the page's items read whole


@dataclass
class Section:
    """A run of entries of the page under one heading: a kind of record, or an author."""

    anchor: str
    name: str
    entries: list[dict[str, Any]] = field(default_factory=list)


def _section_of(item: review_queue.Item, sort: str) -> tuple[str, str]:
    if sort == "author":
        return f"group-author-{item.author}", _("by %(author)s") % {"author": item.author}
    if sort in ("oldest", "newest"):
        return "group-all", str(review_queue.SORTS[sort])
    plural = str(_MODELS_BY_NAME[item.model]._meta.verbose_name_plural).capitalize()
    if item.is_revision:
        return f"group-revision-{item.model}", _("%(things)s: changes of published records") % {"things": plural}
    return f"group-{item.model}", plural


def _anchor(entry: review_queue.Entry) -> str:
    if entry.batch is not None or entry.item is None:
        return entry.key
    return entry.item.key if entry.item.is_revision else f"record-{entry.item.key}"


def _page_sections(user: Any, queue: review_queue.Queue) -> list[Section]:
    """The page's entries with their items read whole (evidence, diffs), in runs under their headings."""
    records: dict[str, list[int]] = defaultdict(list)
    changes: list[int] = []
    for entry in queue.entries:
        if entry.item is None:
            continue
        if entry.item.is_revision:
            changes.append(entry.item.pk)
        else:
            records[entry.item.model].append(entry.item.pk)
    rows: dict[str, Any] = {}
    for group in [*queue_groups(user, dict(records)), *revision_groups(user, changes)]:
        for row in group["rows"]:
            rows[row.key] = row
    sections: list[Section] = []
    anchors = [_anchor(entry) for entry in queue.entries]
    for n, entry in enumerate(queue.entries):
        first = entry.item or entry.items[0]
        anchor, name = _section_of(first, queue.filters.sort)
        if not sections or sections[-1].anchor != anchor:
            sections.append(Section(anchor, name))
        row = rows.get(entry.item.key) if entry.item else None
        if entry.item is not None and row is None:
            continue  # decided between the index and the read
        sections[-1].entries.append(
            {
                "entry": entry,
                "row": row,
                "is_revision": isinstance(row, RevisionRow),
                "model": first.model,
                "anchor": anchors[n],
                "next": anchors[n + 1] if n + 1 < len(anchors) else (anchors[n - 1] if n else ""),
                "open_url": "?" + queue.filters.query(batch=entry.batch.pk) if entry.batch else "",
            }
        )
    return sections


# ---------------------------------------------------------------------------
# Decisions


def _resolve(key: str) -> Curated | None:
    name, _sep, pk = key.rpartition("-")
    model = _MODELS_BY_NAME.get(name)
    number = whole_number(pk)
    if model is None or number is None:
        return None
    return model.objects.filter(pk=number).first()


def _refusal(exc: Exception, what: str) -> str:
    if isinstance(exc, ValidationError):
        return " ".join(exc.messages)
    return str(exc) or _("You may not review %(record)s.") % {"record": what}


def _pinned(request: HttpRequest, key: str) -> str:
    """The pin the queue wrote beside the record or change `key`: what its reviewer read."""
    return str(request.POST.get(f"pin-{key}", ""))


def label(record: Any) -> str:
    """A record as a message names it: in quotes, once (a citation's name quotes its words already)."""
    text = str(record)
    return text if text.startswith("“") else f"“{text}”"


def named(things: list[str], limit: int = 3) -> str:
    """“A”, “B”, “C” and 4 more: what a message says was decided."""
    shown = ", ".join(things[:limit])
    if len(things) > limit:
        shown += " " + _("and %(count)d more") % {"count": len(things) - limit}
    return shown


def _decide_one(request: HttpRequest, verb: str, key: str) -> None:
    """Approve or reject one record in review, as the reviewer read it."""
    record = _resolve(key)
    if record is None:
        messages.error(request, _("No such record: %(key)s.") % {"key": key})
        return
    note = request.POST.get(f"note-{key}", "").strip()
    without_evidence = request.POST.get(f"without_evidence-{key}", "").strip()
    shown = _pinned(request, key)
    kind = record._meta.verbose_name
    try:
        if verb == "approve":
            curation.approve(record, by=request.user, note=note, without_evidence=without_evidence, shown=shown)
        else:
            curation.reject(record, by=request.user, note=note, shown=shown)
    except (PermissionDenied, ValidationError) as exc:
        messages.error(
            request,
            _("%(kind)s “%(record)s”: %(error)s")
            % {"kind": kind, "record": record, "error": _refusal(exc, str(record))},
        )
        return
    text = _("Approved %(kind)s %(record)s.") if verb == "approve" else _("Rejected %(kind)s %(record)s.")
    messages.success(request, text % {"kind": kind, "record": label(record)})


def _decide_revision(request: HttpRequest, verb: str, pk: str, note: str) -> None:
    number = whole_number(pk)
    revision = Revision.objects.filter(pk=number).first() if number is not None else None
    if revision is None:
        messages.error(request, _("No such change: %(key)s.") % {"key": pk})
        return
    shown = _pinned(request, f"revision-{pk}")
    try:
        if verb == "approve":
            revisions.approve_revision(revision=revision, by=request.user, note=note, shown=shown)
        else:
            revisions.reject_revision(revision=revision, by=request.user, note=note, shown=shown)
    except (PermissionDenied, ValidationError) as exc:
        messages.error(
            request,
            _("Change of “%(record)s”: %(error)s")
            % {"record": revision.record_label, "error": _refusal(exc, revision.record_label)},
        )
        return
    text = (
        _("Approved the change of “%(record)s”: it is published.")
        if verb == "approve"
        else _("Rejected the change of “%(record)s”: the published version stays as it was.")
    )
    messages.success(request, text % {"record": revision.record_label})


def _decide_many(request: HttpRequest, verb: str, keys: list[str], note: str) -> None:
    """Decide the records and changes of `keys` as one bulk call each (`archive.services.bulk`)."""
    shown: dict[tuple[type[Curated], int], str] = {}
    changes: dict[int, str] = {}
    for key in dict.fromkeys(keys):
        name, _sep, pk = key.rpartition("-")
        number = whole_number(pk)
        if name == "revision" and number is not None:
            changes[number] = _pinned(request, key)
        elif name in _MODELS_BY_NAME and number is not None:
            shown[(_MODELS_BY_NAME[name], number)] = _pinned(request, key)
        else:
            messages.error(request, _("No such record: %(key)s.") % {"key": key})
    try:
        if verb == "approve":
            outcome = bulk.approve_many(shown=shown, by=request.user, note=note)
        else:
            outcome = bulk.reject_many(shown=shown, by=request.user, note=note)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return
    done = [label(record) for record in outcome.done]
    missing = len(shown) - len(outcome.done) - len(outcome.refused)
    if missing > 0:
        messages.error(request, ngettext("%(count)d record no longer exists.", "%(count)d records no longer exist.",
                                         missing) % {"count": missing})
    if changes:
        decided = bulk.decide_revisions(verb=verb, shown=changes, by=request.user, note=note)
        for revision in decided.done:
            text = (
                _("Approved the change of “%(record)s”: it is published.")
                if verb == "approve"
                else _("Rejected the change of “%(record)s”: the published version stays as it was.")
            )
            messages.success(request, text % {"record": revision.record_label})
        for name, reason in decided.refused:
            messages.error(request, _("Change of “%(record)s”: %(error)s") % {"record": name, "error": reason})
    for name, reason in outcome.refused:
        messages.error(request, f"{name}: {reason}")
    if done:
        text = (
            ngettext("Approved %(count)d record: %(names)s.", "Approved %(count)d records: %(names)s.", len(done))
            if verb == "approve"
            else ngettext("Rejected %(count)d record: %(names)s.", "Rejected %(count)d records: %(names)s.", len(done))
        )
        messages.success(request, text % {"count": len(done), "names": named(done)})


def _batch_keys(request: HttpRequest, number: str) -> list[str] | None:
    """The items of batch `number` the page showed (their pins are posted beside them)."""
    batch_pk = whole_number(number)
    batch = Batch.objects.filter(pk=batch_pk).first() if batch_pk is not None else None
    if batch is None:
        messages.error(request, _("No such batch: %(key)s.") % {"key": number})
        return None
    members = set(batch.citations.values_list("pk", flat=True))
    return [key for key in request.POST.getlist("batch-item") if whole_number(key.rpartition("-")[2]) in members]


def _act(request: HttpRequest) -> None:
    action = request.POST.get("action", "")
    verb, _sep, key = action.partition(":")
    if verb in ("approve-revision", "reject-revision") and key:
        note = request.POST.get(f"note-revision-{key}", "").strip()
        _decide_revision(request, verb.removesuffix("-revision"), key, note)
    elif verb in ("approve", "reject") and key:
        _decide_one(request, verb, key)
    elif verb in ("bulk-approve", "bulk-reject"):
        keys = request.POST.getlist("selected")
        if not keys:
            messages.warning(request, _("Select the records to approve or reject first."))
            return
        _decide_many(request, verb.removeprefix("bulk-"), keys, request.POST.get("bulk_note", "").strip())
    elif verb in ("approve-batch", "reject-batch") and key:
        items = _batch_keys(request, key)
        if items is None:
            return
        if not items:
            messages.warning(request, _("Batch %(batch)s has nothing left for you to decide.") % {"batch": key})
            return
        _decide_many(request, verb.removesuffix("-batch"), items, request.POST.get("batch_note", "").strip())
    else:
        messages.error(request, _("Unknown action."))


def _back(request: HttpRequest) -> str:
    """The queue as the reviewer had it: the same filters and page, at the item after the one decided."""
    query = QueryDict(str(request.POST.get("query", ""))[:2000]).urlencode()
    url = reverse("archive_curate:review") + (f"?{query}" if query else "")
    action = request.POST.get("action", "")
    _verb, _sep, key = action.partition(":")
    if key and not action.startswith(("bulk-", "approve-batch", "reject-batch")):
        own = f"revision-{key}" if "-revision" in action else f"record-{key}"
        anchor = str(request.POST.get(f"next-{own}", ""))
        if re.fullmatch(r"[a-z]+-[a-z]*-?\d+", anchor):
            url += f"#{anchor}"
    return url


def _chunk_answer(request: HttpRequest) -> JsonResponse:
    """What one chunk of a batch decision did, as its messages: the page's script shows them, nothing is kept."""
    said = [{"level": message.level_tag, "text": str(message)} for message in messages.get_messages(request)]
    return JsonResponse({"messages": said})


def queue(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        _act(request)
        # A batch is decided in chunks, each a short request of its own (archive/static/archive/chunked.js).
        if request.POST.get("chunk") == "1":
            return _chunk_answer(request)
        return redirect(_back(request))
    read = review_queue.read(request.user, request.GET)
    for error in read.filters.errors:
        messages.warning(request, error)
    sections = _page_sections(request.user, read)
    page_query = read.filters.query()
    here = read.filters.query(page=read.page.number if read.page.number > 1 else "")
    context = admin_context(
        request,
        title=_("Review queue"),
        queue=read,
        sections=sections,
        total=read.total,
        reviewable=read.reviewable,
        page=read.page,
        page_query=f"{page_query}&" if page_query else "",
        here=here,
        filters=read.filters,
        facet_names={
            "kind": _("Kind of record"), "change": _("Kind of change"), "source": _("Source"),
            "author": _("Author"), "age": _("Waiting since"),
        },
        sorts=[(value, label, read.filters.query(sort=value if value != "kind" else "")) for value, label in
               review_queue.SORTS.items()],
        clear_url=reverse("archive_curate:review"),
    )
    return render(request, "archive/curate/review.html", context)
