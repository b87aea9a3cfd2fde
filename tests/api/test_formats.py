"""The standard formats, checked by the software that reads them.

CSL-JSON is rendered by citeproc-py, GeoJSON validated by the `geojson`
package, Web Annotation selectors checked against the passage text, CSV read
back with the csv module and its formula cells found neutralised.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import geojson
import pytest
from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
from citeproc.source.json import CiteProcJSON

from archive.api.formats import ANNOTATION_CONTEXT, LPF_CONTEXT
from archive.api.renderers import escape_cell
from archive.models import Passage
from tests.api.conftest import ApiClient
from tests.api.world import World

pytestmark = pytest.mark.django_db

BASE = "/api/v1"


def _get(api: ApiClient, path: str, **params: Any) -> Any:
    response = api.get(path, params)
    assert response.status_code == 200, response.content[:300]
    return response


# --- CSL-JSON -------------------------------------------------------------------------------


def test_csl_list_is_an_array_of_items_that_citeproc_renders(world: World, api: ApiClient) -> None:
    response = _get(api, f"{BASE}/sources/", format="csl", fiction="include")
    assert response["Content-Type"] == "application/vnd.citationstyles.csl+json"
    items = json.loads(response.content)
    assert isinstance(items, list)
    assert {item["id"] for item in items} == {"history", "novel"}
    history = next(item for item in items if item["id"] == "history")
    assert history == {
        "id": "history", "type": "book", "title": "Title history",
        "author": [{"family": "Rabe", "given": "John"}], "issued": {"date-parts": [[1997]]},
        "language": "zh-Hans", "publisher": "江苏人民出版社", "publisher-place": "南京",
        "URL": "https://example.org/history", "note": "history",
    }
    novel = next(item for item in items if item["id"] == "novel")
    assert novel["author"] == [{"literal": "无名氏"}]
    assert novel["note"] == "alternate history; fiction"

    style = CitationStylesStyle("harvard-cite-them-right", validate=False)
    bibliography = CitationStylesBibliography(style, CiteProcJSON(items), formatter.plain)
    bibliography.register(Citation([CitationItem("history"), CitationItem("novel")]))
    rendered = [str(entry) for entry in bibliography.bibliography()]
    assert rendered == [
        "Rabe, J. (1997) Title history. 南京: 江苏人民出版社. Available at: https://example.org/history.",
        "无名氏 (no date) Title novel. Available at: http://testserver/api/v1/sources/novel/.",
    ]


def test_csl_detail_is_one_item(world: World, api: ApiClient) -> None:
    item = json.loads(_get(api, f"{BASE}/sources/history/", format="csl").content)
    assert item["id"] == "history"
    assert item["type"] == "book"


# --- GeoJSON and Linked Places ------------------------------------------------------------------


def test_geojson_list_is_a_valid_feature_collection(world: World, api: ApiClient) -> None:
    response = _get(api, f"{BASE}/locations/", format="geojson")
    assert response["Content-Type"] == "application/geo+json"
    collection = geojson.loads(response.content.decode())
    assert collection.is_valid, collection.errors()
    assert collection["type"] == "FeatureCollection"
    features = {feature["id"]: feature for feature in collection["features"]}
    assert features["yijiang-gate"]["geometry"]["coordinates"] == [118.7522, 32.0905]
    assert features["yijiang-gate"]["properties"]["parent"] == "nanjing"
    assert features["xiaguan"]["geometry"] is None
    assert features["nanjing"]["properties"]["aliases"] == ["金陵"]


def test_geojson_detail_is_a_valid_feature(world: World, api: ApiClient) -> None:
    for slug in ("nanjing", "xiaguan"):
        feature = geojson.loads(_get(api, f"{BASE}/locations/{slug}/", format="geojson").content.decode())
        assert feature.is_valid, feature.errors()
        assert feature["type"] == "Feature"
        assert feature["properties"]["slug"] == slug


def test_linked_places_format(world: World, api: ApiClient) -> None:
    collection = json.loads(_get(api, f"{BASE}/locations/", format="lpf").content)
    assert collection["@context"] == LPF_CONTEXT
    assert collection["type"] == "FeatureCollection"
    features = {feature["properties"]["title"]: feature for feature in collection["features"]}
    gate = features["挹江门"]
    assert gate["@id"] == "http://testserver/api/v1/locations/yijiang-gate/"
    assert gate["geometry"] == {"type": "Point", "coordinates": [118.7522, 32.0905]}
    assert gate["relations"] == [{"relationType": "gvp:broaderPartitive",
                                  "relationTo": "http://testserver/api/v1/locations/nanjing/",
                                  "label": "part of 南京"}]
    assert gate["types"][0]["label"] == "gate"
    [name] = gate["names"]
    assert name["toponym"] == "挹江门"
    [citation] = name["citations"]
    assert citation["@id"].startswith("http://testserver/api/v1/citations/")
    assert "a gate of Nanjing" in citation["label"]
    nanjing = features["南京"]
    assert [n["toponym"] for n in nanjing["names"]] == ["南京", "金陵"]
    assert nanjing["relations"] == []
    assert features["下关"]["geometry"] is None
    assert geojson.loads(json.dumps({k: v for k, v in collection.items() if k != "@context"})).is_valid
    detail = json.loads(_get(api, f"{BASE}/locations/yijiang-gate/", format="lpf").content)
    assert detail["@context"] == LPF_CONTEXT
    assert detail["@id"] == gate["@id"]


# --- Web Annotation -------------------------------------------------------------------------------


def test_citation_as_web_annotation(world: World, api: ApiClient) -> None:
    citation = world.history_cite
    response = _get(api, f"{BASE}/citations/{citation.pk}/", format="annotation")
    assert response["Content-Type"] == 'application/ld+json; profile="http://www.w3.org/ns/anno.jsonld"'
    annotation = json.loads(response.content)
    assert annotation["@context"] == ANNOTATION_CONTEXT
    assert annotation["type"] == "Annotation"
    assert annotation["id"] == f"http://testserver/api/v1/citations/{citation.pk}/"
    textual, identifying = annotation["body"]
    assert textual == {"type": "TextualBody", "value": "ordered the retreat", "format": "text/plain",
                       "purpose": "describing"}
    assert identifying == {"type": "SpecificResource", "source": "http://testserver/api/v1/persons/tang-shengzhi/",
                           "purpose": "identifying"}
    target = annotation["target"]
    passage = Passage.objects.get(pk=citation.passage_id)
    assert target["source"] == f"http://testserver/api/v1/passages/{passage.pk}/"
    quote, position = target["selector"]
    assert quote["type"] == "TextQuoteSelector"
    assert position["type"] == "TextPositionSelector"
    assert quote["exact"] == passage.text[position["start"]:position["end"]] == citation.quote
    assert passage.text.startswith(quote["prefix"] + quote["exact"])
    assert passage.text[position["end"]:].startswith(quote["suffix"])
    served = json.loads(_get(api, target["source"]).content)
    assert served["text"][position["start"]:position["end"]] == quote["exact"]


def test_every_annotation_selects_its_quote(world: World, api: ApiClient) -> None:
    page = json.loads(_get(api, f"{BASE}/citations/", format="annotation", fiction="include").content)
    assert page["type"] == "AnnotationPage"
    assert page["partOf"]["total"] == len(page["items"]) == 13
    for annotation in page["items"]:
        passage_id = int(annotation["target"]["source"].rstrip("/").rsplit("/", 1)[1])
        text = Passage.objects.get(pk=passage_id).text
        quote, position = annotation["target"]["selector"]
        assert quote["exact"] == text[position["start"]:position["end"]]


def test_annotation_of_a_post_links_the_post_inside_its_person(world: World, api: ApiClient) -> None:
    person = api.json(f"{BASE}/persons/tang-shengzhi/")
    post_citation = person["posts"][0]["citations"][0]
    annotation = json.loads(_get(api, post_citation["url"], format="annotation").content)
    assert annotation["body"][1]["source"] == "http://testserver/api/v1/persons/tang-shengzhi/#post-tang-garrison"


# --- CSV -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("endpoint", "first_columns"), [
    ("persons", ["slug", "url", "name", "fictional"]),
    ("units", ["slug", "url", "name", "fictional"]),
    ("locations", ["slug", "url", "name", "fictional"]),
    ("events", ["slug", "url", "title", "fictional"]),
])
def test_csv_of_lists(world: World, api: ApiClient, endpoint: str, first_columns: list[str]) -> None:
    response = _get(api, f"{BASE}/{endpoint}/", format="csv")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert list(rows[0])[:4] == first_columns
    assert len(rows) == api.json(f"{BASE}/{endpoint}/")["count"]


def test_csv_cells_cannot_run_formulas(world: World, api: ApiClient) -> None:
    rows = list(csv.DictReader(io.StringIO(_get(api, f"{BASE}/persons/", format="csv").content.decode())))
    tang = next(row for row in rows if row["slug"] == "tang-shengzhi")
    assert tang["names"] == "Tang Shengzhi; 唐司令"
    locations = list(csv.DictReader(io.StringIO(_get(api, f"{BASE}/locations/", format="csv").content.decode())))
    assert {row["slug"]: row["longitude"] for row in locations}["yijiang-gate"] == "118.752200"
    for value, expected in [("=1+1", "'=1+1"), ("+1", "'+1"), ("-1", "'-1"), ("@SUM(A1)", "'@SUM(A1)"),
                            ("\t=1", "'\t=1"), ("a=1", "a=1"), (None, ""), (True, "true")]:
        assert escape_cell(value) == expected


def test_csv_escapes_a_formula_in_the_data(world: World, api: ApiClient) -> None:
    from tests.factories import publish_change

    publish_change(world.tang, description="=HYPERLINK(\"http://evil\")")
    rows = list(csv.DictReader(io.StringIO(_get(api, f"{BASE}/persons/", format="csv").content.decode())))
    tang = next(row for row in rows if row["slug"] == "tang-shengzhi")
    assert tang["description"] == "'=HYPERLINK(\"http://evil\")"


# --- formats an endpoint does not offer -------------------------------------------------------------


@pytest.mark.parametrize(("path", "fmt"), [
    ("sources/", "geojson"), ("sources/history/", "csv"), ("persons/", "csl"), ("persons/tang-shengzhi/", "csv"),
    ("locations/nanjing/", "csv"), ("events/", "annotation"), ("citations/", "csv"), ("units/", "xml"),
    ("events/", "api"), ("locations/", ""),
])
def test_unsupported_format_is_a_404_in_json(world: World, api: ApiClient, path: str, fmt: str) -> None:
    response = api.get(f"{BASE}/{path}", {"format": fmt})
    if fmt == "":
        assert response.status_code == 200
        return
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert "detail" in response.json()


def test_errors_in_another_format_are_json(world: World, api: ApiClient) -> None:
    response = api.get(f"{BASE}/locations/", {"format": "geojson", "page_size": "0"})
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert "page_size" in response.json()
    response = api.get(f"{BASE}/persons/", {"format": "csv", "fiction": "maybe"})
    assert response.status_code == 400
    assert "fiction" in response.json()


def test_formats_without_an_envelope_page_through_link_headers(world: World, api: ApiClient) -> None:
    response = _get(api, f"{BASE}/persons/", format="csv", page_size=1)
    assert response["X-Total-Count"] == "2"
    assert response["Link"] == '<http://testserver/api/v1/persons/?format=csv&page=2&page_size=1>; rel="next"'
    assert len(list(csv.DictReader(io.StringIO(response.content.decode())))) == 1
    second = _get(api, f"{BASE}/persons/", format="csv", page_size=1, page=2)
    assert 'rel="prev"' in second["Link"] and 'rel="next"' not in second["Link"]


def test_an_empty_csv_page_still_names_its_columns(world: World, api: ApiClient) -> None:
    response = _get(api, f"{BASE}/events/", format="csv", kind="bombing")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response.content.decode().splitlines() == [
        "slug,url,title,fictional,kind,date_text,date,earliest,latest,locations,parent,participants,citations,"
        "description"
    ]
