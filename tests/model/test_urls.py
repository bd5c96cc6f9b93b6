"""Slugs (:func:`site_builder.model.urls.make_slug`)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder.model import urls

WORDS = st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=14), min_size=1, max_size=20)


def test_a_long_title_keeps_its_words_in_order():
    title = "Scaling laws for neural language models and implications of it"
    assert urls.make_slug(title, "paper", 50) == "scaling-laws-for-neural-language-models-and"
    track = "Applications to computer vision, audio, language, and other modalities of learning"
    slug = urls.make_slug(track, "track")
    assert "applications-to-computer-vision-audio-language-and-other-modalities-of-learning".startswith(slug)


@settings(max_examples=300, deadline=None)
@given(WORDS, st.integers(min_value=20, max_value=80))
def test_a_cut_slug_is_a_prefix_of_the_whole_one_ending_at_a_word(words, max_length):
    text = " ".join(words)
    whole = urls.make_slug(text, "paper", 10_000)
    cut = urls.make_slug(text, "paper", max_length)
    if cut.endswith("-paper") and not whole.endswith("-paper"):  # a reserved name, made unique
        cut = cut[: -len("-paper")]
    assert whole == cut or whole.startswith(cut + "-") or len(words[0]) > max_length
