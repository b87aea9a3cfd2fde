"""Moving data in and out of the archive: source texts, fixtures, exports.

- `source_text` imports a text file as a Source and its Passages, keeping the
  file byte-for-byte recoverable, and replaces a changed file by re-anchoring
  every citation on it or refusing with the list of those it cannot place.
- `bulk` writes passages (and their history) in bulk: COPY on PostgreSQL,
  batched `bulk_create` elsewhere.
- `fixture_prepare` reads the shipped collection and fills in what follows
  from other fields or lives beside the records (source texts);
  `fixture_check` then validates it before anything is loaded, by the models'
  own `full_clean()` inside a savepoint that is rolled back, so that a broken
  fixture names its file, record and field and leaves the database as it was.
- `export` writes the whole archive back out as the same collection.

The collection is a directory (``fixtures/`` by default) of Django JSON
fixtures named ``NN_name.json``, loaded in name order, whose records use
natural keys (slugs) instead of ids, plus ``sources/`` holding the source
texts. A Source record may carry its ``text``; when it leaves the text out,
the text is read from ``sources/<file_name>`` (or ``sources/<slug>.txt``),
checked against the record's ``sha256``, and the importer makes its passages.
Fields that follow from others may be left out and are filled in on load:
a source's ``length`` and ``sha256``, a passage's ``sha256``, an event's
``earliest``/``latest`` (from its EDTF ``date``) and a citation's
``start``/``end`` (where its quote is in the passage); the last two are
derived by the models' own `clean()` during the check.
"""
