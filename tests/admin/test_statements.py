"""The statements' admin: the form refuses evidence of another record; the action writes the chosen value."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from archive import statements
from archive.dating import NANJING
from archive.models import Event, Statement
from tests.admin.helpers import change_url, changelist, client_for, source
from tests.factories import approved, cite, user

pytestmark = pytest.mark.django_db


def test_the_form_refuses_citations_of_another_record(admin_client) -> None:
    text = source()
    leaving = approved(Event(slug="leaving", title="离开", kind="movement"))
    other = approved(Event(slug="other", title="别的", kind="other"))
    evidence = cite(text.passages.get(seq=1), "12日傍晚5点", event=other)
    response = admin_client.post(reverse("admin:archive_statement_add"), {
        "slug": "leaving--date-1", "event": leaving.pk, "field": "date", "value": "1937-12-12", "rank": "normal",
        "position": 0, "citations": [evidence.pk], "as_written": "", "note": "",
    })
    assert response.status_code == 200
    assert "another record" in response.content.decode()
    assert not Statement.objects.exists()


def test_the_reviewers_action_shows_the_chosen_value_on_the_record() -> None:
    text = source()
    leaving = approved(Event(slug="leaving", title="离开", kind="movement", date="1937-12-12"))
    evidence = cite(text.passages.get(seq=1), "12日傍晚5点", event=leaving)
    statement = approved(statements.statement_create(
        target=leaving, field_name="date", value="1937-12-12", citations=[evidence], rank="preferred",
        earliest=dt.datetime(1937, 12, 12, 17, tzinfo=NANJING), latest=dt.datetime(1937, 12, 12, 17, 59, 59,
                                                                                  tzinfo=NANJING),
        as_written="12日傍晚5点"))
    reviewer = client_for(user(role="reviewer"))
    assert reviewer.get(change_url(statement)).status_code == 200
    response = reviewer.post(changelist(Statement), {"action": "apply_to_records",
                                                     "_selected_action": [statement.pk]}, follow=True)
    assert response.status_code == 200
    leaving.refresh_from_db()
    assert (leaving.date_text, leaving.earliest) == ("12日傍晚5点", dt.datetime(1937, 12, 12, 17, tzinfo=NANJING))


def test_the_form_refuses_a_stated_value_its_quote_does_not_say(admin_client) -> None:
    text = source()
    leaving = approved(Event(slug="leaving", title="离开", kind="movement"))
    evidence = cite(text.passages.get(seq=1), "12日傍晚5点", event=leaving)
    response = admin_client.post(reverse("admin:archive_statement_add"), {
        "slug": "leaving--date-1", "event": leaving.pk, "field": "date", "value": "1937-12-12", "rank": "normal",
        "position": 0, "citations": [evidence.pk], "as_written": "12日傍晚6点", "note": "",
    })
    assert response.status_code == 200
    page = response.content.decode()
    assert "do not state this value" in page and "12日傍晚5点" in page and "12日傍晚6点" in page
    assert not Statement.objects.exists()


def _add(client, event: Event, evidence, **fields):  # type: ignore[no-untyped-def]
    data = {"slug": f"{event.slug}--date-{Statement.objects.count() + 1}", "event": event.pk, "field": "date",
            "value": "1937-12-12", "rank": "normal", "position": 0, "citations": [evidence.pk],
            "as_written": "12日傍晚5点", "note": "", "basis": "stated", "reasoning": "", "reference": "", **fields}
    return client.post(reverse("admin:archive_statement_add"), data)


def test_the_curator_chooses_the_basis_and_an_inference_says_why(admin_client) -> None:
    text = source()
    leaving = approved(Event(slug="leaving", title="离开", kind="movement"))
    evidence = cite(text.passages.get(seq=1), "12日傍晚5点", event=leaving)
    response = _add(admin_client, leaving, evidence, basis="inferred")
    assert response.status_code == 200 and not Statement.objects.exists()  # the model's rule: a reasoning
    response = _add(admin_client, leaving, evidence, basis="inferred", reasoning="the meeting came first")
    assert response.status_code == 302
    inferred = Statement.objects.get()
    assert (inferred.basis, inferred.reasoning) == ("inferred", "the meeting came first")
    page = admin_client.get(change_url(inferred)).content.decode()
    assert "«12日傍晚5点»" in page and 'name="reasoning"' in page and 'name="basis"' in page


def test_an_inference_is_not_preferred_over_a_stated_account(admin_client) -> None:
    text = source()
    leaving = approved(Event(slug="leaving", title="离开", kind="movement"))
    evidence = cite(text.passages.get(seq=1), "12日傍晚5点", event=leaving)
    assert _add(admin_client, leaving, evidence).status_code == 302
    response = _add(admin_client, leaving, evidence, value="1937-12-13", rank="preferred", basis="inferred",
                    reasoning="a day later")
    assert response.status_code == 200 and "not preferred over the stated" in response.content.decode()
    assert Statement.objects.count() == 1


def test_the_form_says_which_cited_quote_states_the_value(admin_client) -> None:
    text = source()
    leaving = approved(Event(slug="leaving", title="离开", kind="movement", date="1937-12-12"))
    says = cite(text.passages.get(seq=1), "12日傍晚5点", event=leaving)
    other_words = text.passages.get(seq=1).text.replace("12日傍晚5点", "").strip("，。 ")[:4]
    silent = cite(text.passages.get(seq=1), other_words, event=leaving)
    statement = statements.statement_create(
        target=leaving, field_name="date", value="1937-12-12", citations=[says, silent], as_written="12日傍晚5点",
        earliest=dt.datetime(1937, 12, 12, 17, tzinfo=NANJING),
        latest=dt.datetime(1937, 12, 12, 17, 59, 59, tzinfo=NANJING))
    page = admin_client.get(change_url(statement)).content.decode()
    assert "«12日傍晚5点» — states the value" in page
    assert f"«{other_words}» — does not state it alone" in page
