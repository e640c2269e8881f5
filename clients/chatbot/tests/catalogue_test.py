# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""The bot's message catalogue: every language has every message, with the
same placeholders, and each text formats with them."""

import string
import unittest

from khet_chatbot.catalogue import DEFAULT_LANGUAGE, LANGUAGES, Words, messages


def placeholders(text):
    return sorted({field for _, field, _, _ in string.Formatter().parse(text)
                   if field is not None})


class CatalogueTest(unittest.TestCase):

    def test_every_language_has_every_message_with_the_same_placeholders(self):
        reference = messages(DEFAULT_LANGUAGE)
        for language in LANGUAGES:
            catalogue = messages(language)
            with self.subTest(language=language):
                self.assertEqual(sorted(catalogue), sorted(reference))
                for name, text in reference.items():
                    self.assertEqual(placeholders(catalogue[name]),
                                     placeholders(text),
                                     f"{language}: {name}")

    def test_every_text_formats(self):
        for language in LANGUAGES:
            words = Words(language)
            for name, text in messages(language).items():
                fields = {field: "x" for field in placeholders(text)}
                self.assertTrue(words(name, **fields), f"{language}: {name}")

    def test_the_languages_differ_and_unknown_codes_speak_english(self):
        self.assertEqual(len({messages(code)["language_set"]
                              for code in LANGUAGES}), len(LANGUAGES))
        self.assertEqual(Words("xx")("silver"), "Silver")
        self.assertEqual(Words("de")("silver"), "Silber")


if __name__ == "__main__":
    unittest.main()
