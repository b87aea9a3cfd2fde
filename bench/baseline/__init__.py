"""The SQL of the API's baseline (`bench/baseline_app.py`): each JSON document of the API in one statement.

`sql` holds the pieces every document shares (references, nested citations,
statements, visibility, pages); `records` the documents of persons, units,
places and events; `texts` those of sources, passages and citations.
"""
