"""What the revision tests share: the public API as a reader sees it, and admin edits as a curator makes them.

Every check of "the published version stays served" reads the API over HTTP,
the way a reader does, never the database: a pending revision that leaked into
any serializer, list, count or search would show there.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.models import User
from django.test import Client

from archive.models import Revision
from archive.services import decisions, revisions
from tests.admin.helpers import change_url, client_for, form_data, review_action

API = "/api/v1"
ENDPOINTS = {
    "person": "persons",
    "unit": "units",
    "location": "locations",
    "event": "events",
    "source": "sources",
}


def api_get(path: str, **params: Any) -> Any:
    response = Client().get(path, params)
    assert response.status_code == 200, (path, params, response.status_code, response.content[:300])
    return response


def api_json(path: str, **params: Any) -> Any:
    return json.loads(api_get(path, **params).content)


def detail_path(record: Any) -> str:
    return f"{API}/{ENDPOINTS[record._meta.model_name]}/{record.slug}/"


def doc(record: Any) -> dict[str, Any]:
    """The record's published API document (200, or the test fails)."""
    return api_json(detail_path(record))


def listed(record: Any, **params: Any) -> list[dict[str, Any]]:
    """The record's entries in its list endpoint (filtered by `params`)."""
    body = api_json(f"{API}/{ENDPOINTS[record._meta.model_name]}/", page_size=200, **params)
    return [entry for entry in body["results"] if entry["slug"] == record.slug]


def list_count(model_name: str, **params: Any) -> int:
    return int(api_json(f"{API}/{ENDPOINTS[model_name]}/", **params)["count"])


def found(q: str) -> list[tuple[str, str | None]]:
    """(type, slug) of every search hit for `q`."""
    body = api_json(f"{API}/search/", q=q, page_size=100)
    return [(hit["type"], hit["slug"]) for hit in body["results"]]


def pending(record: Any) -> Revision | None:
    return revisions.pending_revision(record)


def approve(record: Any, *, by: User) -> Any:
    revision = pending(record)
    assert revision is not None, f"an edit of {record} is pending review"
    return revisions.approve_revision(revision=revision, by=by, shown=decisions.revision_pin(revision))


def change_form(client: Client, record: Any) -> dict[str, Any]:
    page = client.get(change_url(record))
    assert page.status_code == 200
    return form_data(page)


def post_change(client: Client, record: Any, data: dict[str, Any]) -> Any:
    response = client.post(change_url(record), data)
    assert response.status_code == 302, (
        response.context["adminform"].form.errors if response.context and "adminform" in response.context else response
    )
    return response


def edit(account: User, record: Any, **changes: Any) -> Any:
    """Change fields of `record` through its admin change form, as `account` would in a browser."""
    client = client_for(account)
    data = change_form(client, record)
    data.update({name: str(value) for name, value in changes.items()})
    return post_change(client, record, data)


def action(account: User, model: type, name: str, pks: list[Any], **extra: Any) -> Any:
    return review_action(client_for(account), model, name, pks, **extra)
