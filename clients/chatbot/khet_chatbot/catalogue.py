# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""The bot's words in each language it speaks.

messages/<code>.json maps each message's name to its text, with {named}
placeholders filled by str.format. Every language file holds every message
with the same placeholders (tests/catalogue_test.py checks). A channel's
language is its session's `language` setting; unknown codes speak English.
"""

import functools
import json
import os

LANGUAGES = ("en", "de", "fr", "nl")
DEFAULT_LANGUAGE = "en"
_FOLDER = os.path.join(os.path.dirname(__file__), "messages")


@functools.lru_cache(maxsize=None)
def messages(language):
    """The catalogue of `language` (one of LANGUAGES): name -> text."""
    with open(os.path.join(_FOLDER, f"{language}.json"),
              encoding="utf-8") as source:
        return json.load(source)


class Words:
    """Texts in one language: words("no_game", prefix="!")."""

    def __init__(self, language=DEFAULT_LANGUAGE):
        self.language = (language if language in LANGUAGES
                         else DEFAULT_LANGUAGE)
        self._texts = messages(self.language)

    def __call__(self, message, /, **fields):
        return self._texts[message].format(**fields)
