"""Every write of the archive, in one layer (the HackSoft Django Styleguide's services).

The admin, the spreadsheet importers, the fixture loader and the management
commands call these keyword-only functions, which take the acting user and
record who did what in the history in one place (`authorship`). A published
record is never changed in place: `records.record_update` turns an edit of it
into a pending revision (`revisions`), which someone other than its
contributors approves (`review`). The models only refuse what must never
happen; the database's constraints and triggers stay as the backstop.

- `authorship`: history author and reason of every write;
- `records`: create, update, delete a record or one of its names, aliases, passages;
- `revisions`: propose, approve, reject, withdraw a change of a published record;
- `review`: submit, approve, reject a new record; who may review what;
- `merges`: two records of one person, unit or place become one;
- `citations`: a citation made in the source reader.
"""
