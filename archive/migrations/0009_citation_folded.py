"""The folded quote and claim of every citation, for the admin's search box.

Filled here for existing rows; afterwards `FoldedQuoteAndClaim.pre_save`
writes it on every insert and save, and a trigger sets it to NULL when a
write changes the quote or claim without it (the search folds NULL rows in
Python, so no match is missed).
"""

from __future__ import annotations

from typing import Any

from django.db import migrations, models

import archive.models.citations
from archive.db import citation_folded

BATCH_SIZE = 5000


def fill(apps: Any, schema_editor: Any) -> None:
    citation = apps.get_model("archive", "Citation")
    rows = citation.objects.using(schema_editor.connection.alias).order_by("pk").values_list("pk", "quote", "claim")
    last = 0
    with schema_editor.connection.cursor() as cursor:
        while True:
            batch = list(rows.filter(pk__gt=last)[:BATCH_SIZE])
            if not batch:
                return
            last = batch[-1][0]
            cursor.executemany(
                "UPDATE archive_citation SET folded = %s WHERE id = %s",
                [(archive.models.citations.fold_quote_and_claim(quote, claim), pk) for pk, quote, claim in batch],
            )


class Migration(migrations.Migration):
    dependencies = [("archive", "0008_search_order_and_numeric_grams")]

    operations = [
        migrations.AddField(
            model_name="citation",
            name="folded",
            field=archive.models.citations.FoldedQuoteAndClaim(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop, elidable=True),
        migrations.AddIndex(
            model_name="citation",
            index=models.Index(
                condition=models.Q(("folded__isnull", True)), fields=["id"], name="citation_unfolded"
            ),
        ),
        migrations.RunPython(citation_folded.create, citation_folded.drop),
    ]
