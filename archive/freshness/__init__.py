"""Which cached API documents a write makes stale, and the signals that bump them.

The tags are those of `archive.models.document_versions`: `kind:slug` for a
record's own document, `kind:list` for every list of that kind,
`passage:<id>` and `source:<slug>:passages` for passages, `citation:<id>`,
and `*` for everything. `tags.touched` follows a written row to every
document that shows it (its own, its lists, the records that nest it);
`signals.connect` runs it for each save, delete and change of a many-to-many
link, in the writer's transaction.
"""
