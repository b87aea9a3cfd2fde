"""The stages of `bench/run`, one module each, in the order they run.

`generate` (the synthetic archive), `importing`, `api` and
`api_in_process`, `search` (the index, then the queries) and
`first_request` (a new worker's first search and list), `admin` and
`queries` (the API's queries per request). Each adds its figures to the
`bench.figures.Run` it is given; `bench.main` runs them and `bench.report`
writes what they measured.
"""
