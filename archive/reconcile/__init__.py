"""A reconciliation service (W3C Entity Reconciliation CG, API 0.2) over the archive's approved records.

OpenRefine and other clients send names (in any script or romanisation) and
get back the records they may stand for, scored, with `match: true` only when
one is clearly ahead. The modules, in the order a request meets them:

- `types`: the entity types and the properties a query may score by;
- `batch`: a query batch read and checked (`ReconcileError` names the bad part);
- `archive.search.candidates` (shared with the TEI import): candidates by the folded name search;
- `evidence`: what the API shows of each candidate, for properties and data extension;
- `scoring`: names and properties turned into scores and the match decision;
- `extend`, `suggest`, `manifest`: the other services of the specification;
- `views` and `urls`: HTTP, with CORS and the error shape.

Only approved records are found, and fiction only when the query asks for it
with the `fiction` property: the visibility rules are the API's selectors'.
"""
