"""The site's page words in its language (``language`` in ``site.toml``; English by default).

The words are gettext messages: in the templates ``_("…")``, ``{% trans %}`` and the ``count`` filter's
``ngettext`` (Jinja2's i18n extension; ``%(name)s`` placeholders, autoescaped values: ``output/writer.py``,
``page_gettext``), in the code :func:`N_` for words used by the templates, and ``_("…")`` in the browser scripts
(``assets/*.js``, ``window.siteWords`` of ``assets/words.js``, translated through ``window.SITE_STRINGS``, see
:func:`script_strings`). Each language other than English is one Babel message catalog,
``locale/<ll_CC>/LC_MESSAGES/messages.po`` (e.g. ``zh_CN`` for ``language = "zh-CN"``), compiled in memory when
a build first needs it (``babel.messages``: ``read_po``, ``write_mo``); ``babel.cfg`` says where the messages
are, for ``pybabel extract`` and for ``tests/test_i18n.py``, which checks that every message has a translation
in every catalog. Numbers are formatted for the language by Babel (CLDR data).
"""

from __future__ import annotations

import gettext
import io
import json
from functools import lru_cache
from pathlib import Path

# Babel is imported by the functions that need it (~0.035 s): an English build that finds nothing changed,
# and the command line's start, never do (as numpy, see pipeline._import_library).

#: Where the catalogs are: ``locale/<ll_CC>/LC_MESSAGES/messages.po``.
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
#: The language of the messages themselves (no catalog).
DEFAULT_LANGUAGE = "en"


def N_(message: str) -> str:  # noqa: N802 (the gettext convention for "mark for translation, translate later")
    """``message`` itself: marks a page word in the code for ``pybabel extract``; templates translate it."""
    return message


def locale_name(language: str) -> str:
    """The catalog folder (and Babel locale) of a BCP 47 ``language`` tag: ``"zh-CN"`` → ``"zh_CN"``. Raises
    ``ValueError`` (Babel's ``UnknownLocaleError`` is one) for a tag Babel does not know."""
    from babel import Locale

    name = language.replace("-", "_")
    Locale.parse(name)  # raises for an unknown language
    return name


def languages() -> list[str]:
    """The languages a site can be built in, as BCP 47 tags: ``"en"`` and one per catalog (``"zh-CN"``)."""
    found = sorted(p.parent.parent.name for p in LOCALE_DIR.glob("*/LC_MESSAGES/messages.po"))
    return [DEFAULT_LANGUAGE] + [name.replace("_", "-") for name in found]


def catalog_path(language: str) -> Path:
    """The catalog file of ``language`` (it may not exist)."""
    return LOCALE_DIR / locale_name(language) / "LC_MESSAGES" / "messages.po"


@lru_cache(maxsize=8)
def catalog(language: str):
    """The parsed catalog (``babel.messages.Catalog``) of a language other than English. Raises ``OSError``
    when it is missing, ``ValueError`` for an unknown tag."""
    from babel.messages.pofile import read_po

    with catalog_path(language).open("rb") as source:
        return read_po(source, locale=locale_name(language))


@lru_cache(maxsize=8)
def translations(language: str) -> gettext.NullTranslations:
    """The page words of ``language``: ``gettext.NullTranslations`` for English, else its :func:`catalog`
    compiled in memory (fuzzy entries left out, as ``pybabel compile`` does). Raises as :func:`catalog`."""
    if language == DEFAULT_LANGUAGE:
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.support import Translations

    compiled = io.BytesIO()
    write_mo(compiled, catalog(language), use_fuzzy=False)
    compiled.seek(0)
    return Translations(compiled)


@lru_cache(maxsize=4096)
def format_number(number: int, language: str) -> str:
    """``number`` written for ``language``: ``12,345`` in English (CLDR grouping, Babel ``format_decimal``; the
    same few counts recur on thousands of pages, so the last 4,096 are kept)."""
    from babel.numbers import format_decimal

    return format_decimal(number, locale=locale_name(language))


def script_strings(language: str) -> str:
    """The text of ``assets/strings.js``: ``window.SITE_STRINGS = {English: translation, …};`` for the
    messages of the browser scripts (those the catalog found in ``assets/``; the scripts look their words up
    with ``_("…")``, ``window.siteWords``, and keep the English ones when the table lacks them, as in an English
    site)."""
    table = {} if language == DEFAULT_LANGUAGE else {
        m.id: m.string for m in catalog(language)
        if m.id and m.string and not m.fuzzy and any(path.startswith("assets/") for path, _ in m.locations)}
    return "window.SITE_STRINGS = " + json.dumps(table, ensure_ascii=False, sort_keys=True) + ";\n"
