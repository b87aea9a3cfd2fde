"""Folding must make variant spellings meet and stay traceable to offsets."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from archive.text.normalize import (
    fold,
    fold_aligned,
    fold_chars,
    fold_latin,
    is_han,
    pinyin_forms,
    to_simplified,
)

PIECES = ["孫百里", "蕪湖", "薴", "臺灣", "ＡＢＣ", "ﬁ", "㎏", "e\u0301", "ß", "İ", "𠀀", "𡈽", "\u0345", "Ω"]
texts = st.lists(st.one_of(st.text(max_size=6), st.sampled_from(PIECES)), max_size=12).map("".join)


def test_fold_examples() -> None:
    assert fold("蕪湖") == fold("芜湖") == "芜湖"
    assert fold("孫百里") == "孙百里"
    assert fold("ＡＢＣ") == "abc"
    assert fold("Straße") == fold("STRASSE")
    assert to_simplified("臺灣") == "台湾"


@settings(max_examples=200, deadline=None)
@given(texts)
def test_fold_is_idempotent(text: str) -> None:
    once = fold(text)
    assert fold(once) == once


def test_fold_reaches_fixpoint_of_t2s_chain() -> None:
    assert fold("薴") == fold(fold("薴")) == "苎"


@settings(max_examples=200, deadline=None)
@given(texts)
def test_fold_aligned_maps_back(text: str) -> None:
    folded, origin = fold_aligned(text)
    assert folded == fold_chars(text)
    assert len(origin) == len(folded)
    assert origin == sorted(origin)
    assert all(0 <= i < len(text) for i in origin)
    # Regroup the folded characters by origin: each group is the fold of
    # exactly that original character, and every non-vanishing char appears.
    groups: dict[int, str] = {}
    for ch, i in zip(folded, origin, strict=True):
        groups[i] = groups.get(i, "") + ch
    for i, ch in enumerate(text):
        assert groups.get(i, "") == fold_chars(ch)


def test_fold_aligned_examples() -> None:
    assert fold_aligned("ﬁ孫𠀀") == ("fi孙𠀀", [0, 0, 1, 2])
    # Per-character: the combining mark stays separate, unlike fold().
    assert fold_chars("e\u0301") == "e\u0301"
    assert fold("e\u0301") == unicodedata.normalize("NFC", "é")


def test_is_han() -> None:
    assert all(is_han(c) for c in "孫孙𠀀𡈽㐀豈")
    assert not any(is_han(c) for c in "aＡ。ｱあ한 ")
    with pytest.raises(ValueError):
        is_han("孫百")


def test_pinyin_forms() -> None:
    assert pinyin_forms("唐生智") == ["tang sheng zhi", "tangshengzhi", "tang shengzhi"]
    assert pinyin_forms("周斓") == pinyin_forms("周澜") == ["zhou lan", "zhoulan"]
    assert pinyin_forms("孫百里") == pinyin_forms("孙百里")
    assert pinyin_forms("吕") == ["lv"]
    assert pinyin_forms("欧阳予倩")[0] == "ou yang yu qian"
    assert len(pinyin_forms("司马相如一")) == 2
    assert pinyin_forms("Tang  Shengzhi") == ["tang shengzhi", "tangshengzhi"]
    assert pinyin_forms("  ") == []


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="唐生智周斓孫百里欧阳", min_size=1, max_size=6))
def test_pinyin_forms_shape(name: str) -> None:
    forms = pinyin_forms(name)
    assert len(forms) == len(set(forms))
    spaced = forms[0]
    assert len(spaced.split(" ")) == len(name)
    assert forms[1:2] == ([spaced.replace(" ", "")] if len(name) > 1 else [])
    if 2 <= len(name) <= 4:
        assert spaced.split(" ", 1)[0] + " " + forms[1][len(spaced.split(" ", 1)[0]) :] in forms
    assert all(f == f.lower() and f.isascii() for f in forms)


def test_fold_latin() -> None:
    assert fold_latin("T'ang Sheng-chih") == "tang shengchih"
    assert fold_latin("T\u2019ANG  Shêng-chih ") == "tang shengchih"
    assert fold_latin("Nguyễn Ái Quốc") == "nguyen ai quoc"
    assert fold_latin("Chiang Kai-shek") == fold_latin("chiang kaishek")
