"""The API's documents written in SQL for PostgreSQL: each record's whole document as one expression.

The serializers are the definition of every document; these expressions
build the same JSON in the database, in one statement, where the ORM and the
serializers take a dozen statements and their Python. The API builds its
stored documents with them on PostgreSQL (`archive.api.sql_built`), and the
benchmark's baseline answers with them (`bench.baseline_app`). Tests hold
both to the serializers' output, byte for byte for the API's documents.
"""
