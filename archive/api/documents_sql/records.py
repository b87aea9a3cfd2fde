"""Persons, units, places and events: the document of each, as one SQL expression.

Each takes `include`, whether the evidence of fiction is shown (an SQL
boolean), and reads its record under the alias its FROM clause gives it:
`p`, `u`, `l` or `e`.
"""

from __future__ import annotations

from archive.api.documents_sql.parts import (
    accounts,
    chosen,
    citations,
    fictional,
    link,
    nullable_ref,
    ref,
    stated,
    stated_text,
    statements,
    visible,
)


def participation(event: str, include: str) -> str:
    """A participation `pa` of `event`, its person `pp` or unit `pu` joined."""
    return f"""json_build_object(
        'slug', pa.slug, 'fictional', {fictional("pa")},
        'event', {ref(event, "events", "title")},
        'person', {nullable_ref("pp", "persons")}, 'unit', {nullable_ref("pu", "units")},
        'role', coalesce({chosen("pa", "participation", "role", include)}, pa.role),
        'position', pa.position, 'note', pa.note,
        'citations', {citations("pa", "participation_id", include)},
        'statements', {statements("pa", "participation", include)})"""


def post(person: str, unit: str, include: str) -> str:
    """A post `po` of `person` in `unit`."""
    return f"""json_build_object(
        'slug', po.slug, 'fictional', {fictional("po")},
        'person', {ref(person, "persons")}, 'unit', {ref(unit, "units")},
        'title', coalesce({chosen("po", "post", "title", include)}, po.title),
        'date_from', {stated_text("po", "post", "date_from", include, "po.date_from")},
        'date_to', {stated_text("po", "post", "date_to", include, "po.date_to")},
        'acting', po.acting, 'concurrent', po.concurrent,
        'note', po.note, 'citations', {citations("po", "post_id", include)},
        'statements', {statements("po", "post", include)})"""


def place(alias: str, parent: str) -> str:
    """A place as a reference with its parent's (`place_ref`); `parent` joined, NULL when not visible."""
    return (
        f"json_build_object('slug', {alias}.slug, 'name', {alias}.name, "
        f"'url', {link('locations/', f'{alias}.slug')}, 'parent', {nullable_ref(parent, 'locations')})"
    )


def _children(table: str, alias: str, kind: str, name: str, order: str, include: str) -> str:
    child = f"{alias}c"
    return f"""(SELECT coalesce(json_agg({ref(child, kind, name)} ORDER BY {order}), '[]'::json)
        FROM archive_{table} {child} WHERE {child}.parent_id = {alias}.id AND {visible(child, include)})"""


def person(include: str) -> str:
    return f"""json_build_object(
    'url', {link("persons/", "p.slug")}, 'slug', p.slug, 'name', p.name,
    'fictional', {fictional("p")}, 'marked_historical', p.marked_historical,
    'side', p.side, 'birth', {stated_text("p", "person", "birth", include, "p.birth")},
    'death', {stated_text("p", "person", "death", include, "p.death")}, 'description', p.description,
    'names', (SELECT coalesce(json_agg(json_build_object('name', n.name, 'kind', n.kind, 'script', n.script,
            'note', n.note) ORDER BY n.id), '[]'::json) FROM archive_personname n WHERE n.person_id = p.id),
    'posts', (SELECT coalesce(json_agg({post("p", "u", include)} ORDER BY u.name, u.slug, po.title, po.slug),
            '[]'::json)
        FROM archive_post po JOIN archive_unit u ON u.id = po.unit_id AND u.status = 'approved'
        WHERE po.person_id = p.id AND {visible("po", include)}),
    'participations', (SELECT coalesce(json_agg({participation("ev", include)}
            ORDER BY ev.earliest ASC NULLS LAST, ev.slug, pa.id), '[]'::json)
        FROM archive_participation pa JOIN archive_event ev ON ev.id = pa.event_id
        JOIN archive_person pp ON pp.id = pa.person_id
        LEFT JOIN archive_unit pu ON pu.id = pa.unit_id AND pu.status = 'approved'
        WHERE pa.person_id = p.id AND {visible("pa", include)} AND {visible("ev", include)}),
    'citations', {citations("p", "person_id", include)},
    'statements', {statements("p", "person", include)})"""


def unit(include: str) -> str:
    return f"""json_build_object(
    'url', {link("units/", "u.slug")}, 'slug', u.slug, 'name', u.name,
    'fictional', {fictional("u")}, 'marked_historical', u.marked_historical,
    'echelon', u.echelon, 'side', u.side, 'description', u.description,
    'aliases', (SELECT coalesce(json_agg(json_build_object('name', a.name, 'script', a.script) ORDER BY a.id),
            '[]'::json) FROM archive_unitalias a WHERE a.unit_id = u.id),
    'parent', (SELECT {ref("up", "units")} FROM archive_unit up WHERE up.id = u.parent_id AND {visible("up", include)}),
    'children', {_children("unit", "u", "units", "name", "uc.name, uc.slug", include)},
    'posts', (SELECT coalesce(json_agg({post("p", "u", include)} ORDER BY po.title, po.slug), '[]'::json)
        FROM archive_post po JOIN archive_person p ON p.id = po.person_id AND p.status = 'approved'
        WHERE po.unit_id = u.id AND {visible("po", include)}),
    'citations', {citations("u", "unit_id", include)})"""


def _coordinate(part: int, include: str, column: str) -> str:
    """The latitude (1) or longitude (2) shown: the chosen “lat,lon” account's if one is live, else the column's."""
    account = chosen("l", "location", "coordinates", include)
    value = f"coalesce(split_part({account}, ',', {part})::float8, l.{column}::float8)"
    # A float as Python writes it: 32.0, not PostgreSQL's 32.
    return f"""(SELECT CASE WHEN x = trunc(x) THEN (x::text || '.0')::json ELSE to_json(x) END
        FROM (SELECT {value} AS x) v)"""


def location(include: str) -> str:
    return f"""json_build_object(
    'url', {link("locations/", "l.slug")}, 'slug', l.slug, 'name', l.name,
    'fictional', {fictional("l")}, 'marked_historical', l.marked_historical,
    'kind', l.kind, 'description', l.description,
    'aliases', (SELECT coalesce(json_agg(json_build_object('name', a.name, 'language', a.language, 'note', a.note)
            ORDER BY a.id), '[]'::json) FROM archive_locationalias a WHERE a.location_id = l.id),
    'parent', (SELECT {place("lp", "lpp")} FROM archive_location lp
        LEFT JOIN archive_location lpp ON lpp.id = lp.parent_id AND {visible("lpp", include)}
        WHERE lp.id = l.parent_id AND {visible("lp", include)}),
    'latitude', {_coordinate(1, include, "latitude")}, 'longitude', {_coordinate(2, include, "longitude")},
    'coordinate_precision', l.coordinate_precision,
    'citations', {citations("l", "location_id", include)},
    'statements', {statements("l", "location", include)})"""


_CHILD_EVENTS = "ec.earliest ASC NULLS LAST, ec.latest ASC NULLS LAST, ec.slug"


def event(include: str) -> str:
    dated = stated("e", "event", "date", include)
    return f"""json_build_object(
    'url', {link("events/", "e.slug")}, 'slug', e.slug, 'title', e.title,
    'fictional', {fictional("e")}, 'kind', e.kind, 'description', e.description,
    'date_text', {stated_text("e", "event", "date", include, "e.date_text", "as_written")},
    'date', {stated_text("e", "event", "date", include, "e.date")},
    'earliest', CASE WHEN {dated} THEN {chosen("e", "event", "date", include, "earliest")} ELSE e.earliest END,
    'latest', CASE WHEN {dated} THEN {chosen("e", "event", "date", include, "latest")} ELSE e.latest END,
    'locations', (SELECT coalesce(json_agg({place("l", "lp")} ORDER BY l.name, l.slug), '[]'::json)
        FROM archive_event_locations el JOIN archive_location l ON l.id = el.location_id
        LEFT JOIN archive_location lp ON lp.id = l.parent_id AND {visible("lp", include)}
        WHERE el.event_id = e.id AND {visible("l", include)}
          AND (NOT {stated("e", "event", "location", include)}
               OR l.slug IN (SELECT s.value {accounts("e", "event", "location", include, live=True)}))),
    'parent', (SELECT {ref("pe", "events", "title")} FROM archive_event pe
        WHERE pe.id = e.parent_id AND {visible("pe", include)}),
    'children', {_children("event", "e", "events", "title", _CHILD_EVENTS, include)},
    'participations', (SELECT coalesce(json_agg({participation("e", include)} ORDER BY pa.position, pa.id),
            '[]'::json)
        FROM archive_participation pa
        LEFT JOIN archive_person pp ON pp.id = pa.person_id AND pp.status = 'approved'
        LEFT JOIN archive_unit pu ON pu.id = pa.unit_id AND pu.status = 'approved'
        WHERE pa.event_id = e.id AND (pp.id IS NOT NULL OR pu.id IS NOT NULL) AND {visible("pa", include)}
          -- A real person's part in an invented event is itself invented.
          AND ({include} OR NOT {fictional("e")})),
    'citations', {citations("e", "event_id", include)},
    'statements', {statements("e", "event", include)})"""
