"""The stored `fictional` flag of cited records, kept equal to its definition.

Fiction is a property of evidence (`fictional_expression` below):
a record is fictional when it has approved citations and all of them come from
fiction. Deriving that in every query made each list and count look through
the citations of the whole archive, so the flag is stored on the record
(`Cited.fictional`) and recomputed here, one UPDATE per model, whenever what
it depends on changes:

* a citation is saved or deleted: its record, and the one it was evidence for before (not for a save
  that leaves an unapproved citation unapproved, which is no record's evidence);
* a source changes kind: every record cited from its passages;
* a record's `marked_historical` changes (a save never writes the flag itself,
  see `Cited._do_update`).

The signal handlers below cover every path that saves models, loaddata
included. Paths that write without signals (merges, the synthetic generator)
call `refresh` or `refresh_all` themselves. `deferred()` gathers the work of
a long load into one refresh at its end. `stale()` lists the records whose
flag disagrees with the definition; the tests hold it empty.
"""

from __future__ import annotations

import contextlib
import threading
from collections import defaultdict
from collections.abc import Iterable, Iterator

from django.db import models
from django.db.models.signals import post_delete, post_save

from archive.models import Citation, DocumentVersion, Source, Status
from archive.models.registry import CITED_MODELS, TARGET_FIELDS, cited_model

_pending = threading.local()


def fictional_expression(model: type[models.Model], citation_model: type[models.Model] = Citation) -> models.Expression:
    """Fiction is a property of evidence: the definition of `Cited.fictional`.

    A record is fictional when it has approved citations and all of them come
    from fiction; a person, unit or place a curator marked historical never is.
    `citation_model` is given by migrations, which use historical models.
    """
    field = model._meta.model_name
    assert field is not None
    cited = citation_model._default_manager.filter(**{field: models.OuterRef("pk")}, status=Status.APPROVED)
    expression = models.Exists(cited.filter(passage__source__is_fiction=True)) & ~models.Exists(
        cited.filter(passage__source__is_fiction=False)
    )
    if any(f.name == "marked_historical" for f in model._meta.get_fields()):
        expression &= models.Q(marked_historical=False)
    return models.ExpressionWrapper(expression, output_field=models.BooleanField())


def refresh(model: type[models.Model], pks: Iterable[int] | None = None, using: str = "default") -> int:
    """Recompute the flag of `model`'s rows `pks` (all rows if None); returns the rows changed."""
    queryset = model._default_manager.using(using)
    if pks is not None:
        pks = [pk for pk in set(pks) if pk is not None]
        if not pks:
            return 0
        queryset = queryset.filter(pk__in=pks)
    expression = fictional_expression(model)
    # Only the rows whose flag changes are written.
    return queryset.exclude(fictional=expression).update(fictional=expression)


def refresh_all(using: str = "default") -> int:
    changed = sum(refresh(model, using=using) for model in CITED_MODELS)
    if changed:
        DocumentVersion.objects.bump_everything(using=using)  # written with update(), which sends no signal
    return changed


def stale(using: str = "default") -> list[tuple[str, str]]:
    """The (model, slug) of every record whose stored flag differs from its definition."""
    found = []
    for model in CITED_MODELS:
        wrong = model._default_manager.using(using).exclude(fictional=fictional_expression(model))
        found += [(model._meta.label_lower.split(".")[1], slug) for slug in wrong.values_list("slug", flat=True)]
    return found


def refresh_cited_from(source_id: int, using: str = "default") -> None:
    """Every record with a citation in the passages of source `source_id`."""
    cited = Citation.objects.using(using).filter(passage__source_id=source_id)
    for field in TARGET_FIELDS:
        model = cited_model(field)
        refresh(model, cited.filter(**{f"{field}__isnull": False}).values_list(field, flat=True), using)


def refreshed_at_once() -> bool:
    """Whether a refresh asked for now is made at once (not inside `deferred()`, which makes it at its end)."""
    return getattr(_pending, "work", None) is None


@contextlib.contextmanager
def deferred(using: str = "default") -> Iterator[None]:
    """Collect the refreshes asked for inside the block and run them once, at its end."""
    outer = getattr(_pending, "work", None)
    if outer is not None:
        yield
        return
    _pending.work = defaultdict(set)
    try:
        yield
        work, _pending.work = _pending.work, None
        for model, pks in work.items():
            refresh(model, pks, using)
    finally:
        _pending.work = None


def _ask(model: type[models.Model], pk: int | None, using: str) -> None:
    if pk is None:
        return
    work = getattr(_pending, "work", None)
    if work is not None:
        work[model].add(pk)
    else:
        refresh(model, [pk], using)


def _citation_targets(citation: Citation) -> set[tuple[str, int]]:
    targets = {(field, getattr(citation, f"{field}_id")) for field in TARGET_FIELDS}
    targets |= set(getattr(citation, "_loaded_targets", ()))
    return {(field, pk) for field, pk in targets if pk is not None}


def _on_citation_change(sender: type, instance: Citation, using: str, **kwargs: object) -> None:
    for field, pk in _citation_targets(instance):
        _ask(cited_model(field), pk, using)


def _on_citation_saved(sender: type, instance: Citation, using: str, created: bool, **kwargs: object) -> None:
    # Only approved citations are evidence. A save that leaves a citation unapproved, of a row that did not
    # exist or was stored unapproved (the save claimed it so), changes no record's flag: a draft of an
    # import or a curator's draft costs no refresh.
    unapproved_before = created or instance.claimed_unpublished()
    if unapproved_before and instance.status != Status.APPROVED:
        return
    _on_citation_change(sender, instance, using)


def _on_record_saved(
    sender: type, instance: models.Model, using: str, created: bool, raw: bool, **kwargs: object
) -> None:
    if created and not raw:
        return  # nothing cites it yet
    marked = instance.__dict__.get("marked_historical")
    if marked is not None and marked != getattr(instance, "_loaded_marked_historical", None):
        _ask(sender, instance.pk, using)


def _on_source_saved(sender: type, instance: Source, using: str, created: bool, **kwargs: object) -> None:
    loaded = getattr(instance, "_loaded_kind", None)
    if not created and loaded is not None and loaded != instance.kind:
        refresh_cited_from(instance.pk, using)


def connect() -> None:
    post_save.connect(_on_citation_saved, sender=Citation, dispatch_uid="fiction-citation-saved")
    post_delete.connect(_on_citation_change, sender=Citation, dispatch_uid="fiction-citation-deleted")
    post_save.connect(_on_source_saved, sender=Source, dispatch_uid="fiction-source-saved")
    for model in CITED_MODELS:
        if not any(field.name == "marked_historical" for field in model._meta.fields):
            continue
        post_save.connect(_on_record_saved, sender=model, dispatch_uid=f"fiction-{model._meta.model_name}-saved")
