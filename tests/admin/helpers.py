"""Builders shared by the admin tests: a small world of records, and clients per role."""

from __future__ import annotations

import itertools
import re
from typing import Any

from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from archive.models import (
    Citation,
    Event,
    Location,
    LocationAlias,
    Participation,
    Passage,
    Person,
    PersonName,
    Post,
    SlugRedirect,
    Source,
    Status,
    Unit,
    UnitAlias,
)
from tests.factories import cite, in_status, source_with_text, user

TEXT = "唐生智于12日傍晚5点离开司令部，赶往煤炭港码头。\n\n第74军军长俞济时率部向挹江门撤退。\n\n部队在下关码头渡江。\n"

_counter = itertools.count(1)


def client_for(account: User) -> Client:
    client = Client()
    client.force_login(account)
    return client


_PIN = re.compile(r'name="(pin-[^"]+)" value="([^"]*)"')


def pins(html: str) -> dict[str, str]:
    """The pins a review page writes beside each record or change: what its reviewer read."""
    return dict(_PIN.findall(html))


def review_action(client: Client, model: type, action: str, pks: list[Any], **extra: Any) -> Any:
    """An admin action as the browser runs it; a decision (`apply`) posts the pins its intermediate page showed."""
    url = changelist(model)
    data: dict[str, Any] = {"action": action, "_selected_action": [str(pk) for pk in pks]}
    if "apply" in extra:
        page = client.post(url, data)
        if page.status_code == 200:
            data.update(pins(page.content.decode()))
    return client.post(url, {**data, **extra})


def changelist(model: type, **params: Any) -> str:
    return reverse(f"admin:archive_{model._meta.model_name}_changelist")


def change_url(record: Any) -> str:
    return reverse(f"admin:archive_{record._meta.model_name}_change", args=[record.pk])


def source(status: str = Status.APPROVED, text: str = TEXT, kind: str = "history") -> Source:
    return source_with_text(text, slug=f"src-{next(_counter)}", kind=kind, status=status)


def person(status: str = Status.APPROVED, **fields: Any) -> Person:
    n = next(_counter)
    fields = {"slug": f"person-{n}", "name": f"人物{n}", "side": "chinese", **fields}
    return in_status(Person(**fields), status)


def unit(status: str = Status.APPROVED, **fields: Any) -> Unit:
    n = next(_counter)
    fields = {"slug": f"unit-{n}", "name": f"第{n}师", "echelon": "division", **fields}
    return in_status(Unit(**fields), status)


def location(status: str = Status.APPROVED, **fields: Any) -> Location:
    n = next(_counter)
    fields = {"slug": f"place-{n}", "name": f"地点{n}", "kind": "gate", **fields}
    return in_status(Location(**fields), status)


def event(status: str = Status.APPROVED, **fields: Any) -> Event:
    n = next(_counter)
    fields = {"slug": f"event-{n}", "title": f"事件{n}", "kind": "retreat", "date": "1937-12-12", **fields}
    return in_status(Event(**fields), status)


def post(status: str = Status.APPROVED, **fields: Any) -> Post:
    n = next(_counter)
    fields = {"slug": f"post-{n}", "title": "军长", **fields}
    fields.setdefault("person", person())
    fields.setdefault("unit", unit())
    return in_status(Post(**fields), status)


def participation(status: str = Status.APPROVED, **fields: Any) -> Participation:
    n = next(_counter)
    fields = {"slug": f"part-{n}", "role": "commander", **fields}
    fields.setdefault("event", event())
    if "unit" not in fields:
        fields.setdefault("person", person())
    return in_status(Participation(**fields), status)


def world(rows: int) -> dict[str, list[Any]]:
    """`rows` records of every model, each with its links, names and a citation."""
    made: dict[str, list[Any]] = {name: [] for name in ("source", "passage", "citation", "redirect")}
    for _ in range(rows):
        src = source()
        passage = src.passages.get(seq=1)
        who = person()
        PersonName.objects.create(person=who, name=f"{who.name}别名")
        where = location(parent=None)
        LocationAlias.objects.create(location=where, name=f"{where.name}旧称")
        division = unit(parent=None)
        UnitAlias.objects.create(unit=division, name=f"{division.name}别称")
        happening = event()
        happening.locations.add(where)
        held = post(person=who, unit=division)
        took_part = participation(event=happening, person=who)
        made["source"].append(src)
        made["passage"].append(passage)
        made["citation"].append(cite(passage, "唐生智", person=who))
        cite(passage, "煤炭港", location=where)
        cite(src.passages.get(seq=2), "第74军", unit=division)
        cite(passage, "离开司令部", event=happening)
        cite(passage, "赶往", post=held)
        cite(passage, "码头", participation=took_part)
        n = next(_counter)
        made["redirect"].append(SlugRedirect.objects.create(model="person", old_slug=f"old-{n}", new_slug=who.slug))
    return made


__all__ = [
    "TEXT",
    "Citation",
    "Passage",
    "change_url",
    "changelist",
    "client_for",
    "event",
    "location",
    "participation",
    "person",
    "post",
    "source",
    "unit",
    "user",
    "world",
]


def _put(data: dict[str, Any], key: str, value: Any) -> None:
    if value is None:
        data[key] = ""
    elif isinstance(value, bool):
        if value:
            data[key] = "on"
    elif isinstance(value, list | tuple):
        data[key] = [str(item) for item in value]
    else:
        data[key] = str(value)


def _put_field(data: dict[str, Any], bound: Any) -> None:
    from django.forms import MultiWidget

    widget = bound.field.widget
    if isinstance(widget, MultiWidget):
        parts = widget.decompress(bound.value())
        for index, part in enumerate(parts):
            _put(data, f"{bound.html_name}_{index}", part)
        return
    _put(data, bound.html_name, bound.value())


def form_data(response: Any) -> dict[str, Any]:
    """The POST data a browser would send back from an admin change form, unchanged."""
    data: dict[str, Any] = {}
    form = response.context["adminform"].form
    for name in form.fields:
        _put_field(data, form[name])
    for inline in response.context.get("inline_admin_formsets", []):
        formset = inline.formset
        for name in formset.management_form.fields:
            _put_field(data, formset.management_form[name])
        for subform in formset.forms:
            for name in subform.fields:
                _put_field(data, subform[name])
    return data
