"""The words and proportions the synthetic archive is made of: review mix, ranks, kinds, names.

Kept apart from the code that deals them out (`writer`, `plan`) so that the
shape of the archive can be read, and changed, in one place.
"""

from __future__ import annotations

import datetime as dt

from archive.models import Echelon, LocationKind, Rank, SourceKind, Status

# One review state per card; a shuffled deck of twenty gives 80 % approved and
# at least one of each other state in every twenty rows.
STATUS_DECK = [Status.APPROVED] * 16 + [Status.IN_REVIEW] * 2 + [Status.DRAFT] * 1 + [Status.REJECTED] * 1
RANKS = [Rank.NORMAL] * 17 + [Rank.PREFERRED] * 2 + [Rank.DEPRECATED]
KIND_WEIGHTS: dict[str, int] = {
    SourceKind.DIARY: 10,
    SourceKind.MEMOIR: 12,
    SourceKind.ORDER: 6,
    SourceKind.REPORT: 8,
    SourceKind.NEWSPAPER: 9,
    SourceKind.HISTORY: 18,
    SourceKind.REFERENCE: 7,
    SourceKind.NOVEL: 12,
    SourceKind.WEB_NOVEL: 12,
    SourceKind.ALTERNATE_HISTORY: 6,
}
KIND_TITLES = {
    SourceKind.DIARY: "日记",
    SourceKind.MEMOIR: "回忆录",
    SourceKind.ORDER: "命令",
    SourceKind.REPORT: "战斗详报",
    SourceKind.NEWSPAPER: "报",
    SourceKind.HISTORY: "史",
    SourceKind.REFERENCE: "辞典",
    SourceKind.NOVEL: "小说",
    SourceKind.WEB_NOVEL: "网络小说",
    SourceKind.ALTERNATE_HISTORY: "架空历史",
}
RECORD_KINDS = ("person", "unit", "location", "event")
# Dealt like the review states, so that even a small archive has every kind.
RECORD_DECK = ["person"] * 7 + ["unit"] * 4 + ["location"] * 4 + ["event"] * 5
POOL_SIZE = 256  # earlier records kept for links across sources
SURNAMES = (
    "王李张刘陈杨赵黄周吴徐孙胡朱高林何郭马罗梁宋郑谢韩唐冯于董萧程曹袁邓许傅沈曾彭吕苏卢蒋蔡贾丁魏薛叶阎"
    "余潘杜戴夏钟汪田任姜范方石姚谭廖邹熊金陆郝孔白崔康毛邱秦江史顾侯邵孟龙万段雷钱汤尹黎易常武乔贺赖龚文"
)
TITLES = ("司令长官", "司令", "军长", "副军长", "师长", "代师长", "旅长", "团长", "营长", "参谋长", "副官", "处长")
PLACE_SUFFIXES = {
    LocationKind.CITY: "城",
    LocationKind.COUNTY: "县",
    LocationKind.TOWN: "镇",
    LocationKind.VILLAGE: "村",
    LocationKind.GATE: "门",
    LocationKind.HILL: "山",
    LocationKind.PIER: "码头",
    LocationKind.RIVER: "河",
    LocationKind.ROAD: "路",
    LocationKind.BUILDING: "楼",
    LocationKind.FORT: "炮台",
    LocationKind.ISLAND: "洲",
}
ECHELON_NAMES = {
    Echelon.ARMY_GROUP: "第{n}集团军",
    Echelon.ARMY: "第{n}军",
    Echelon.CORPS: "第{n}军团",
    Echelon.DIVISION: "第{n}师",
    Echelon.BRIGADE: "第{n}旅",
    Echelon.REGIMENT: "第{n}团",
    Echelon.BATTALION: "第{n}营",
    Echelon.DETACHMENT: "第{n}支队",
}
BASE_TIME = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
