"""The audit page lists the findings with links to their records; staff only."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from archive.models import CuratorNote
from tests.admin.helpers import change_url, client_for, source
from tests.audit.builders import person
from tests.factories import cite, user

pytestmark = pytest.mark.django_db


def test_only_staff_see_the_audit(client: Client) -> None:
    url = reverse("archive_curate:audit")
    assert url == "/admin/curate/audit/"
    response = client.get(url)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_findings_link_to_their_records_and_passages() -> None:
    text = source()
    bare = person(slug="bare", name="无证")
    quoted = person(slug="quoted", name="唐生智")
    passage = text.passages.get(seq=1)
    cite(passage, "唐生智", person=quoted)
    cite(passage, "唐生智", person=quoted)
    explained = person(slug="explained", name="有注")
    CuratorNote.objects.create(slug="n", model="person", record="explained", code="no-evidence", note="on purpose")
    response = client_for(user(role="curator")).get(reverse("archive_curate:audit"))
    assert response.status_code == 200
    html = response.content.decode()
    assert change_url(bare) in html and "no-evidence" in html
    assert change_url(quoted) in html and "duplicate-citation" in html
    assert f"#passage-{passage.seq}" in html
    assert change_url(explained) in html and "on purpose" in html


def test_the_curators_index_links_to_the_audit() -> None:
    response = client_for(user(role="curator")).get(reverse("archive_curate:index"))
    assert response.status_code == 200
    assert reverse("archive_curate:audit") in response.content.decode()
