"""Statements written on synthetic records, which the generator leaves without any."""

from __future__ import annotations

import datetime as dt

from archive.models import Event, Location, Participation, Person, Status


def state_facts() -> None:
    """Statements on some synthetic records (the generator writes none): ranked, fictional, deprecated, draft.

    Written in bulk, as the generator writes, so that no review rule stands
    between the test and the rows; each account rests on the record's own
    approved citations, from fiction or not.
    """
    from archive.models import Citation, Post
    from archive.models.statements import Statement

    nanjing = dt.timezone(dt.timedelta(hours=8))
    ranks = ["preferred", "normal", "deprecated", "normal"]
    statuses = ["approved", "approved", "approved", "draft"]
    statements: list[Statement] = []
    cited: list[tuple[int, list[int]]] = []

    def state(target: str, record: object, field: str, values: list[str], **extra: object) -> None:
        evidence = list(
            Citation.objects.filter(**{target: record}, status=Status.APPROVED).values_list("pk", flat=True)
        )
        for index, value in enumerate(values):
            statements.append(
                Statement(slug=f"st-{target}-{record.pk}-{field}-{index}", field=field, value=value,  # type: ignore[attr-defined]
                          as_written=f"written {value}", rank=ranks[index % 4], status=statuses[index % 4],
                          position=index, **{target: record}, **extra)
            )
            cited.append((len(statements) - 1, evidence[index % len(evidence):][:2] if evidence else []))

    for number, event in enumerate(Event.objects.approved().order_by("slug")[:12]):
        day = dt.datetime(1937, 12, 10 + number % 5, 17, tzinfo=nanjing)
        state("event", event, "date", [f"1937-12-{10 + number % 5}", "1937-12-20"],
              earliest=day, latest=day + dt.timedelta(minutes=59))
        places = list(event.locations.order_by("slug").values_list("slug", flat=True))
        if places and number % 2:
            state("event", event, "location", places[:1] + places[:1])
    for participation in Participation.objects.approved().order_by("slug")[:10]:
        state("participation", participation, "role", ["commander", "participant", "killed"])
    for post in Post.objects.approved().order_by("slug")[:10]:
        state("post", post, "title", ["军长", "师长"])
        state("post", post, "date_from", ["1937-11", "1937-10", "1937-09"])
    for person in Person.objects.approved().order_by("slug")[:20]:
        state("person", person, "birth", ["1890", "1891", "1892", "1893"])
    for place in Location.objects.approved().order_by("slug")[:10]:
        state("location", place, "coordinates", ["32.0894,118.7536", "31.5,118", "30.25,117"])
    Statement.objects.bulk_create(statements)
    through = Statement.citations.through
    through.objects.bulk_create(
        through(statement_id=statements[index].pk, citation_id=pk) for index, pks in cited for pk in pks
    )
