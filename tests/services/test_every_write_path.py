"""Every write the admin offers on published content waits for a second person: proved by enumeration.

The table EXPECTED states, for every model of the archive registered in the
admin, what each write its ModelAdmin offers to a curator or a reviewer does
to an approved record: add, change, delete, each bulk action, spreadsheet
import, history revert. `test_the_table_covers_every_write_the_admin_offers`
reads the admin itself (the registry, permissions, `get_actions`,
`resource_classes`, history), so a model or an action registered tomorrow
without a rule here fails it. `test_a_write` then performs each write through
the admin with django.test.Client and reads the API as a reader does: the
published document is unchanged after the write, and changed once a reviewer
who had no hand in it approves what is pending.

Outcomes:
- REVISED: the write becomes a pending revision (of the record, or of the
  record a name, alias, passage belongs to); the API is unchanged until it is
  approved by someone else, and changed after;
- DRAFTED: the write makes a new draft, invisible until it is submitted and
  approved by someone else;
- REFUSED: offered, but refused for a published record: nothing changes and
  nothing is pending;
- DERIVED: writes only what approved records already say (a reviewer showing
  approved statements' values in their record's columns): nothing is pending
  and the published document stays as it is.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import tablib
from django.contrib import admin
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import models
from django.test import Client, RequestFactory
from django.urls import reverse

from archive.models import (
    Curated,
    LocationAlias,
    Passage,
    PassageRole,
    PersonName,
    Revision,
    Statement,
    Status,
    UnitAlias,
)
from archive.services import decisions, records, review, revisions
from archive.services.revision_values import field_values
from tests.admin.helpers import client_for, event, form_data, location, participation, person, post, source, unit, user
from tests.factories import approved, cite
from tests.services.helpers import API

pytestmark = pytest.mark.django_db

REVISED, DRAFTED, REFUSED, DERIVED = "revised", "drafted", "refused", "derived"
ROLES = ("curator", "reviewer")

CURATED_WRITES = {
    "add": DRAFTED,
    "change": REVISED,
    "import": REVISED,
    "revert": REVISED,
    "action:submit_selected": REFUSED,
    "action:approve_selected": REFUSED,
    "action:reject_selected": REFUSED,
}
MERGEABLE_WRITES = {**CURATED_WRITES, "action:merge_selected": REVISED}
CHILD_WRITES = {
    "add": REVISED,
    "change": REVISED,
    "delete": REVISED,
    "import": REVISED,
    "revert": REVISED,
    "action:delete_selected": REVISED,
}

EXPECTED: dict[str, dict[str, str]] = {
    "archive.source": CURATED_WRITES,
    "archive.person": MERGEABLE_WRITES,
    "archive.unit": MERGEABLE_WRITES,
    "archive.location": MERGEABLE_WRITES,
    "archive.event": CURATED_WRITES,
    "archive.post": CURATED_WRITES,
    "archive.participation": CURATED_WRITES,
    "archive.citation": CURATED_WRITES,
    "archive.statement": {
        **{name: outcome for name, outcome in CURATED_WRITES.items() if name != "import"},
        "action:apply_to_records": DERIVED,
    },
    "archive.personname": CHILD_WRITES,
    "archive.unitalias": CHILD_WRITES,
    "archive.locationalias": CHILD_WRITES,
    # A passage's text is the source's; only its role and what it quotes change.
    "archive.passage": {"change": REVISED, "revert": REVISED},
    # Written by merges only, and read-only in the admin.
    "archive.slugredirect": {},
    # Curators' notes explaining audit findings: no role edits them in the admin.
    "archive.curatornote": {},
    # Releases are made whole by a reviewer's button (`archive.importing.release_view`), never edited.
    "archive.release": {},
}


# -- what the admin offers


def offered_writes(model_admin: admin.ModelAdmin, account: User) -> set[str]:
    request = RequestFactory().get("/admin/")
    request.user = account
    writes = set()
    if model_admin.has_add_permission(request):
        writes.add("add")
    if model_admin.has_change_permission(request):
        writes.add("change")
        if hasattr(model_admin.model, "history") and hasattr(model_admin, "history_form_view"):
            writes.add("revert")
    if model_admin.has_delete_permission(request):
        writes.add("delete")
    writes |= {f"action:{name}" for name in model_admin.get_actions(request)}
    if getattr(model_admin, "resource_classes", None) and model_admin.has_import_permission(request):
        writes.add("import")
    return writes


def archive_admins() -> dict[str, admin.ModelAdmin]:
    return {
        model._meta.label_lower: model_admin
        for model, model_admin in admin.site._registry.items()
        if model._meta.app_label == "archive"
    }


def test_the_table_covers_every_write_the_admin_offers() -> None:
    accounts = {role: user(f"wp-{role}", role=role) for role in ROLES}
    admins = archive_admins()
    assert set(admins) == set(EXPECTED), (
        f"registered in the admin without a rule here: {sorted(set(admins) - set(EXPECTED))}; "
        f"a rule for a model no longer registered: {sorted(set(EXPECTED) - set(admins))}"
    )
    for label, model_admin in admins.items():
        offered = set().union(*(offered_writes(model_admin, account) for account in accounts.values()))
        assert offered == set(EXPECTED[label]), (
            f"{label}: offered without a rule {sorted(offered - set(EXPECTED[label]))}, "
            f"a rule for what is not offered {sorted(set(EXPECTED[label]) - offered)}"
        )


# Every view a model's admin adds (Django's own, simple-history's history form, django-import-export's
# import and its confirm step) by its URL name: the write of the table it performs, or None for a read.
ADMIN_VIEWS: dict[str, str | None] = {
    "changelist": "action:",  # the bulk actions, each a write of its own in the table
    "add": "add",
    "change": "change",
    "delete": "delete",
    "simple_history": "revert",  # simple-history's history form: save_model, then the form's save_m2m
    "import": "import",  # django-import-export's upload ...
    "process_import": "import",  # ... and its confirm step, which writes
    "history": None,
    "export": None,
}


def test_every_view_the_admin_adds_is_a_write_of_the_table_or_a_read() -> None:
    accounts = [user(f"wv-{role}", role=role) for role in ROLES]
    for label, model_admin in archive_admins().items():
        offered = set().union(*(offered_writes(model_admin, account) for account in accounts))
        prefix = f"{model_admin.opts.app_label}_{model_admin.opts.model_name}_"
        for pattern in model_admin.get_urls():
            if pattern.name is None:  # the admin's redirect of a bare id to its change page
                continue
            view = pattern.name.removeprefix(prefix)
            assert view in ADMIN_VIEWS, f"{label}: the admin view {pattern.name} has no rule here"
            write = ADMIN_VIEWS[view]
            if write is None or write == "action:":
                continue
            if write in offered:
                assert write in EXPECTED[label], f"{label}: {pattern.name} writes without a rule"


# -- the records, and what the public sees of them


@dataclass
class Case:
    """How to build an approved record of a model, change one of its fields, and read it in the API."""

    build: Callable[[], Any]
    field: str
    value: str
    # API paths that show the record (its own document, or that of the record it belongs to).
    paths: Callable[[Any], list[str]]
    # The list endpoint whose count a new or removed record changes.
    listing: str | None = None
    # The record whose revision an edit proposes (a name's person, a passage's source).
    owner: Callable[[Any], Any] = lambda record: record
    # Fields of the add form, given a fresh approved record of the model to hang the new one on.
    add: Callable[[Any], dict[str, Any]] = lambda record: {}
    # API paths that show a newly added record once published.
    added_paths: Callable[[Any], list[str]] | None = None
    # Other fields that must change with `field` to `value` (a quotation names the work it quotes).
    companions: Callable[[Any], dict[str, Any]] = lambda record: {}


def _doc(record: Any) -> str:
    plural = {"person": "persons", "unit": "units", "location": "locations", "event": "events", "source": "sources"}
    return f"{API}/{plural[record._meta.model_name]}/{record.slug}/?fiction=include"


def _statement() -> Statement:
    happening = event(date="1937-12-12")
    passage = source().passages.get(seq=1)
    evidence = cite(passage, "12日傍晚5点离开司令部", event=happening)  # a quote that says the date
    statement = Statement(slug=f"st-{happening.slug}", event=happening, field="date", value="1937-12-12",
                          as_written="12日", note="原注")
    statement = approved(statement)
    statement.citations.add(evidence)
    return statement


def _citation() -> Any:
    who = person()
    return cite(source().passages.get(seq=1), "唐生智", person=who, claim="原来的说法")


def _passage() -> Passage:
    return source().passages.get(seq=2)


CASES: dict[str, Case] = {
    "archive.person": Case(
        build=lambda: person(description="原文"), field="description", value="改订的描述",
        paths=lambda r: [_doc(r)], listing="persons",
        add=lambda r: {"slug": "added-person", "name": "新人物", "side": "chinese"},
        added_paths=lambda r: [f"{API}/persons/added-person/"],
    ),
    "archive.unit": Case(
        build=lambda: unit(parent=None, description="原文"), field="description", value="改订的描述",
        paths=lambda r: [_doc(r)], listing="units",
        add=lambda r: {"slug": "added-unit", "name": "新编师", "echelon": "division", "side": "chinese"},
        added_paths=lambda r: [f"{API}/units/added-unit/"],
    ),
    "archive.location": Case(
        build=lambda: location(parent=None, description="原文"), field="description", value="改订的描述",
        paths=lambda r: [_doc(r)], listing="locations",
        add=lambda r: {"slug": "added-place", "name": "新地点", "kind": "gate"},
        added_paths=lambda r: [f"{API}/locations/added-place/"],
    ),
    "archive.event": Case(
        build=lambda: event(description="原文"), field="description", value="改订的描述",
        paths=lambda r: [_doc(r)], listing="events",
        add=lambda r: {"slug": "added-event", "title": "新事件", "kind": "retreat", "date": "1937-12-13"},
        added_paths=lambda r: [f"{API}/events/added-event/"],
    ),
    "archive.source": Case(
        build=lambda: source(), field="description", value="改订的描述",
        paths=lambda r: [_doc(r)], listing="sources",
        add=lambda r: {"slug": "added-source", "title": "新来源", "kind": "memoir", "language": "zh-Hans"},
        added_paths=lambda r: [f"{API}/sources/added-source/"],
    ),
    "archive.post": Case(
        build=lambda: post(title="军长"), field="title", value="副军长",
        paths=lambda r: [_doc(r.person), _doc(r.unit)],
        add=lambda r: {"slug": "added-post", "person": str(r.person_id), "unit": str(r.unit_id), "title": "参谋长"},
        added_paths=lambda r: [_doc(r.person)],
    ),
    "archive.participation": Case(
        build=lambda: participation(note="原注"), field="note", value="改订的注",
        paths=lambda r: [_doc(r.event)],
        add=lambda r: {"slug": "added-part", "event": str(r.event_id), "person": str(r.person_id),
                       "role": "participant"},
        added_paths=lambda r: [_doc(r.event)],
    ),
    "archive.citation": Case(
        build=_citation, field="claim", value="改订的说法",
        paths=lambda r: [f"{API}/citations/{r.pk}/?fiction=include", _doc(r.person)], listing="citations",
        add=lambda r: {"passage": str(r.passage_id), "quote": "煤炭港", "claim": "新的说法",
                       "person": str(r.person_id)},
        added_paths=lambda r: [_doc(r.person)],
    ),
    "archive.statement": Case(
        build=_statement, field="note", value="改订的注",
        paths=lambda r: [_doc(r.event)],
        # No quote says the 13th: the new account is an inference from the cited departure.
        add=lambda r: {"slug": "added-statement", "event": str(r.event_id), "field": "date", "value": "1937-12-13",
                       "as_written": "", "note": "新的", "basis": "inferred", "reasoning": "离开之后次日",
                       "citations": [str(pk) for pk in r.citations.values_list("pk", flat=True)]},
        added_paths=lambda r: [_doc(r.event)],
    ),
    "archive.personname": Case(
        build=lambda: PersonName.objects.create(person=person(), name="唐孟潇", note="原注"), field="note",
        value="改订的注", paths=lambda r: [_doc(r.person)], owner=lambda r: r.person,
        add=lambda r: {"person": str(r.person_id), "name": "新别名", "kind": "alias", "script": "Hans"},
        added_paths=lambda r: [_doc(r.person)],
    ),
    "archive.unitalias": Case(
        build=lambda: UnitAlias.objects.create(unit=unit(parent=None), name="七十四军", script="Hans"),
        field="script", value="Hant", paths=lambda r: [_doc(r.unit)], owner=lambda r: r.unit,
        add=lambda r: {"unit": str(r.unit_id), "name": "新别称", "script": "Hans"},
        added_paths=lambda r: [_doc(r.unit)],
    ),
    "archive.locationalias": Case(
        build=lambda: LocationAlias.objects.create(location=location(parent=None), name="旧称", note="原注"),
        field="note", value="改订的注", paths=lambda r: [_doc(r.location)], owner=lambda r: r.location,
        add=lambda r: {"location": str(r.location_id), "name": "新旧称", "language": "zh-Hans"},
        added_paths=lambda r: [_doc(r.location)],
    ),
    "archive.passage": Case(
        build=_passage, field="role", value=PassageRole.QUOTATION, companions=lambda r: {"quotes": source()},
        paths=lambda r: [f"{API}/passages/{r.pk}/?fiction=include"], owner=lambda r: r.source,
    ),
}


def stored(record: Any) -> dict[str, Any]:
    """The record as stored: its fields, its links, and every published row that belongs to it or points at it.

    What the API shows is checked by `public`; this reads the database, so a
    link or a child row written onto a published record without review fails
    even where no document shows it.
    """
    model = type(record)
    row = model._default_manager.get(pk=record.pk)
    seen: dict[str, Any] = {"fields": field_values(row)}
    for field in model._meta.many_to_many:
        seen[field.name] = sorted(getattr(row, field.name).values_list("pk", flat=True))
    for relation in model._meta.related_objects:
        related = relation.related_model
        if related not in admin.site._registry:
            continue
        rows = related._default_manager.filter(**{relation.field.name: row.pk})
        if issubclass(related, Curated):
            rows = rows.filter(status=Status.APPROVED)  # a new draft that names it is no change of it
        links = {field.name for field in related._meta.many_to_many}
        seen[f"{related._meta.label_lower}.{relation.field.name}"] = sorted(
            (
                obj.pk,
                sorted(field_values(obj).items()),
                sorted((name, sorted(getattr(obj, name).values_list("pk", flat=True))) for name in links),
            )
            for obj in rows
        )
    return seen


def public(paths: list[str], listing: str | None) -> dict[str, Any]:
    """What a reader gets at `paths` (status and body) and the count of `listing`."""
    client = Client()
    seen: dict[str, Any] = {}
    for path in paths:
        response = client.get(path)
        assert response.status_code in (200, 301, 404), (path, response.status_code)
        seen[path] = (response.status_code, json.loads(response.content) if response.status_code == 200 else None)
    if listing is not None:
        seen[listing] = json.loads(client.get(f"{API}/{listing}/", {"fiction": "include"}).content)["count"]
    return seen


# -- performing each write as the admin does


@dataclass
class World:
    actor: User
    approver: User
    client: Client
    case: Case
    model: type[models.Model]
    record: Any
    others: list[Any] = dataclasses.field(default_factory=list)


def _admin_url(model: type[models.Model], view: str, *args: Any) -> str:
    return reverse(f"admin:archive_{model._meta.model_name}_{view}", args=args)


def _fresh(record: Any) -> Any:
    return type(record)._default_manager.get(pk=record.pk)


def _change(world: World) -> str:
    url = _admin_url(world.model, "change", world.record.pk)
    data = form_data(world.client.get(url))
    data[world.case.field] = world.case.value
    for name, value in world.case.companions(world.record).items():
        data[name] = str(value.pk)
    response = world.client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors if response.context else response
    return world.case.value


def _add(world: World) -> str | None:
    url = _admin_url(world.model, "add")
    page = world.client.get(url)
    assert page.status_code == 200
    data = {
        key: value
        for key, value in form_data(page).items()
        if value not in ("", [""]) and not key.endswith(("version", "-TOTAL_FORMS"))
    }
    data.update(world.case.add(world.record))
    for inline in page.context.get("inline_admin_formsets", []):
        data[f"{inline.formset.prefix}-TOTAL_FORMS"] = "0"
    response = world.client.post(url, data)
    errors = response.context["adminform"].form.errors if response.status_code == 200 and response.context else ""
    assert response.status_code == 302, errors
    return None


def _delete(world: World) -> None:
    response = world.client.post(_admin_url(world.model, "delete", world.record.pk), {"post": "yes"})
    assert response.status_code == 302


def _action(name: str, world: World, **extra: Any) -> Any:
    return world.client.post(
        _admin_url(world.model, "changelist"),
        {"action": name, "_selected_action": [str(world.record.pk), *(str(o.pk) for o in world.others)], **extra},
    )


def _import(world: World) -> str:
    model_admin = admin.site._registry[world.model]
    [resource_class] = model_admin.resource_classes
    exported = resource_class().export(queryset=world.model._default_manager.filter(pk=world.record.pk))
    rows = [dict(zip(exported.headers, row, strict=True)) for row in exported]
    rows[0][world.case.field] = world.case.value
    sheet = tablib.Dataset(headers=exported.headers)
    for row in rows:
        sheet.append([row[name] for name in exported.headers])
    upload = SimpleUploadedFile("sheet.csv", sheet.export("csv").encode())
    page = world.client.post(_admin_url(world.model, "import"), {"format": "0", "import_file": upload})
    assert page.status_code == 200 and "confirm_form" in page.context, page.content.decode()[:3000]
    confirm = page.context["confirm_form"]
    response = world.client.post(
        _admin_url(world.model, "process_import"), {name: confirm[name].value() for name in confirm.fields}
    )
    assert response.status_code == 302
    return world.case.value


def _set_and_publish(world: World, value: str, companions: dict[str, Any]) -> None:
    """Change the case's field of the published record through the services, approved by a third person."""
    fresh = _fresh(world.record)
    setattr(fresh, world.case.field, value)
    for name, other in companions.items():
        setattr(fresh, name, other)
    proposer = User.objects.filter(username="wp-setup-curator").first() or user("wp-setup-curator", role="curator")
    if isinstance(fresh, Curated):
        records.record_update(record=fresh, by=proposer)
    else:
        parent = world.case.owner(fresh)
        records.child_save(child=fresh, parent_field=parent._meta.model_name, by=proposer)
    owner = world.case.owner(world.record)
    setup_reviewer = User.objects.filter(username="wp-setup-reviewer").first() or user("wp-setup-reviewer",
                                                                                       role="reviewer")
    proposed = revisions.pending_revision(owner)
    assert proposed is not None
    revisions.approve_revision(revision=proposed, by=setup_reviewer, shown=decisions.revision_pin(proposed))


def prepare(write: str, world: World) -> None:
    """Give a record to revert a published version to go back to: the case's value, since changed again."""
    if write == "revert":
        case = world.case
        _set_and_publish(world, case.value, case.companions(world.record))
        later = {"script": "Latn", "role": PassageRole.BODY}.get(case.field, "后来又改了")
        _set_and_publish(world, later, dict.fromkeys(case.companions(world.record)))


def _revert(world: World) -> str:
    case = world.case
    target = world.record.history.filter(**{case.field: case.value}).order_by("-history_date").first()
    assert target is not None
    url = _admin_url(world.model, "simple_history", world.record.pk, target.history_id)
    data = form_data(world.client.get(url))
    if "locations" in data:  # the form states links too: a revert that moves the event elsewhere
        data["locations"] = [str(location(parent=None, slug="wp-elsewhere", name="上海").pk)]
    response = world.client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors if response.context else response
    return case.value


def perform(write: str, world: World) -> str | None:
    """Do `write` as the actor; return a value the published document shows once it is approved."""
    if write == "change":
        return _change(world)
    if write == "add":
        return _add(world)
    if write == "delete":
        _delete(world)
        return None
    if write == "import":
        return _import(world)
    if write == "revert":
        return _revert(world)
    name = write.removeprefix("action:")
    if name == "delete_selected":
        assert _action(name, world, post="yes").status_code == 302
    elif name == "merge_selected":
        assert _action(name, world, apply="1", survivor=str(world.record.pk)).status_code == 302
    elif name in ("approve_selected", "reject_selected"):
        assert _action(name, world, apply="1", review_note="试图").status_code in (200, 302)
    else:
        assert _action(name, world).status_code in (200, 302)
    return None


def _actor_role(label: str, write: str) -> str:
    model_admin = archive_admins()[label]
    for role in ROLES:
        if write in offered_writes(model_admin, User.objects.get(username=f"wp-{role}")):
            return role
    raise AssertionError(f"{label}: {write} is offered to no role")


def _owner_status(world: World) -> str | None:
    owner = world.case.owner(world.record)
    return type(owner)._default_manager.filter(pk=owner.pk).values_list("status", flat=True).first()


@pytest.mark.parametrize(
    ("label", "write"),
    [(label, write) for label, writes in EXPECTED.items() for write in writes],
    ids=lambda value: value.removeprefix("archive."),
)
def test_a_write(label: str, write: str) -> None:
    outcome = EXPECTED[label][write]
    for role in ROLES:
        user(f"wp-{role}", role=role)
    role = _actor_role(label, write)
    actor = User.objects.get(username=f"wp-{role}")
    approver = user("wp-approver", role="reviewer")
    case = CASES[label]
    model = archive_admins()[label].model
    record = case.build()
    world = World(actor=actor, approver=approver, client=client_for(actor), case=case, model=model, record=record)
    if write == "action:merge_selected":
        world.others = [case.build()]
    paths = case.paths(record) + [path for other in world.others for path in case.paths(other)]
    if write == "add":
        paths += case.added_paths(record) if case.added_paths else []
    prepare(write, world)
    before_ids = set(model._default_manager.values_list("pk", flat=True))
    before = public(paths, case.listing)
    owners = [case.owner(record), *(case.owner(other) for other in world.others)]
    stored_before = [stored(owner) for owner in owners]
    pending_before = set(Revision.objects.pending().values_list("pk", flat=True))

    shown = perform(write, world)

    during = public(paths, case.listing)
    assert during == before, f"{label} {write}: the public record changed before review"
    assert [stored(owner) for owner in owners] == stored_before, (
        f"{label} {write}: a published row, link or child row changed before review"
    )
    assert _owner_status(world) == Status.APPROVED
    proposed = list(Revision.objects.pending().exclude(pk__in=pending_before))

    if outcome in (REFUSED, DERIVED):
        assert proposed == [], f"{label} {write}: nothing is proposed"
        return
    if outcome == DRAFTED:
        assert proposed == []
        [new] = model._default_manager.exclude(pk__in=before_ids)
        assert new.status == Status.DRAFT and new.created_by == actor
        review.submit(new, by=actor)
        with pytest.raises(PermissionDenied):
            review.approve(new, by=actor, without_evidence="试图", shown=decisions.record_pin(new))
        review.approve(new, by=approver, without_evidence="built without citations", shown=decisions.record_pin(new))
    else:
        assert proposed, f"{label} {write}: a pending revision"
        for revision in proposed:
            with pytest.raises(PermissionDenied):
                revisions.approve_revision(revision=revision, by=actor, shown=decisions.revision_pin(revision))
            assert public(paths, case.listing) == before
            revisions.approve_revision(revision=revision, by=approver, shown=decisions.revision_pin(revision))

    after = public(paths, case.listing)
    assert after != before, f"{label} {write}: the approved change is published"
    if shown is not None:
        assert shown in json.dumps(after, ensure_ascii=False)
        assert shown not in json.dumps(before, ensure_ascii=False)
