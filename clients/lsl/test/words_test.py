#!/usr/bin/python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""The board's own words (khet_words.lsl) in its four languages.

Reads texts() and submenu() from the words script and checks:
- every word has its text once in each language (English, German, French,
  Dutch, in that order) or one text for all, none empty, and the same
  placeholders ({1}, {W1}, {D1}...) in every language;
- the sides' words are the service's catalogue's (service/i18n/
  catalog_<lang>.cc, kSilver and kRed), each piece the catalogue names is
  called by the catalogue's word for it wherever the English names it,
  and where the English says "setup", "draw" or "game" the other languages
  use the terms service/i18n/README.md sets for them;
- every button label fits a dialog (at most 24 bytes) and every dialog
  text too (at most 512 bytes), in every language;
- the words script and the board script agree: every word the board says
  or shows exists, every button the board offers has a label, every
  submenu's final choice is one the board handles (but "no" and "cancel",
  which the words script takes as closing the dialog), and every button
  that opens a submenu has one.
Usage: words_test.py --words khet_words.lsl --board khet_board.lsl
       --catalogs service/i18n --terms service/i18n/README.md
"""

import argparse
import pathlib
import re
import sys

import lsl_lang

LANGS = ("en", "de", "fr", "nl")
PLACEHOLDER = re.compile(r"\{[WD]?\d\}")
BUTTON_BYTES = 24    # llDialog refuses longer labels
DIALOG_BYTES = 512   # and longer texts
PIECES = ("kPharaoh", "kPyramid", "kScarab", "kDjed", "kAnubis", "kSphinx",
          "kObelisk", "kEyeOfHorus")
ARTICLES = ("der", "die", "das", "de", "het", "le", "la", "l'")
CLOSING = {"no", "cancel"}   # buttons the words script answers by closing


def returns(script, name):
    """{id: text} of a function made of `if (id == "x") return "y";`."""
    fn = next(f for f in script.functions if f.name == name)
    out = {}
    for stmt in fn.body.body:
        if stmt.kind != "if":
            continue
        key, value = stmt.cond.right.value, stmt.then.value.value
        if key in out:
            raise AssertionError(f"{name}: {key!r} twice")
        out[key] = value
    return out


def languages(text):
    """The text in each language, English first."""
    parts = text.split("|")
    return parts if len(parts) == 4 else parts * 4


def catalogue(folder, lang):
    """{message: text} of service/i18n/catalog_<lang>.cc."""
    source = (folder / f"catalog_{lang}.cc").read_text(encoding="utf-8")
    out = {}
    for name, body in re.findall(r"\{Message::(k\w+),\s*((?:\"(?:[^\"\\]|"
                                 r"\\.)*\"\s*)+)\}", source):
        out[name] = "".join(re.findall(r"\"((?:[^\"\\]|\\.)*)\"", body))
    return out


def noun(template):
    """A piece message's noun: "das {color} Auge des Horus" -> "Auge des
    Horus", "l'Œil d'Horus {color}" -> "Œil d'Horus"."""
    words = template.replace("{color}", " ").split()
    if words and words[0] in ARTICLES:
        words = words[1:]
    elif words and words[0].startswith("l'"):
        words[0] = words[0][2:]
    return " ".join(words)


def terms(readme):
    """{english: (english, german, french, dutch)} of the README's table
    rows for setup, draw and game."""
    out = {}
    for row in readme.splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] in ("setup", "draw", "game"):
            out[cells[0]] = tuple(cells[1:])
    return out


def label(words, lang, button):
    """khet_words.lsl's label(), or None where it would fall back to the
    bare id (no word for it)."""
    def word(key):
        return languages(words[key])[lang] if key in words else ""
    if word(button):
        return word(button)
    if " " not in button:
        return None
    key, value = button.split(" ", 1)
    if word(key):
        text = word(key).replace("{1}", value)
        return text.replace("{W1}", word(value) or value)
    return value


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--words", required=True)
    parser.add_argument("--board", required=True)
    parser.add_argument("--catalogs", required=True)
    parser.add_argument("--terms", required=True)
    args = parser.parse_args()
    script = lsl_lang.parse(pathlib.Path(args.words).read_text(encoding="utf-8"))
    board = pathlib.Path(args.board).read_text(encoding="utf-8")
    words = returns(script, "texts")
    menus = returns(script, "submenu")
    failures = []

    # Each word in every language, with the same placeholders.
    for key, text in words.items():
        parts = text.split("|")
        if len(parts) not in (1, 4) or "" in parts:
            failures.append(f"{key}: {len(parts)} texts, some empty: {text!r}")
            continue
        marks = [sorted(PLACEHOLDER.findall(p)) for p in parts]
        if any(m != marks[0] for m in marks):
            failures.append(f"{key}: placeholders differ: {marks}")

    # The catalogue's sides and pieces; the README's terms.
    folder = pathlib.Path(args.catalogs)
    books = {lang: catalogue(folder, lang) for lang in LANGS}
    for key, message in (("s", "kSilver"), ("r", "kRed")):
        want = [books[lang][message] for lang in LANGS]
        if languages(words.get(key, "")) != want:
            failures.append(f"side {key}: {words.get(key)!r}, the catalogue "
                            f"says {want}")
    pieces = [[noun(books[lang][p]) for lang in LANGS] for p in PIECES]
    table = terms(pathlib.Path(args.terms).read_text(encoding="utf-8"))
    if sorted(table) != ["draw", "game", "setup"]:
        failures.append(f"the README's terms table gave {table}")
    for key, text in words.items():
        texts = languages(text)
        for names in pieces:
            if names[0].lower() in texts[0].lower():
                for lang, name in zip(LANGS, names):
                    if name.lower() not in texts[LANGS.index(lang)].lower():
                        failures.append(f"{key} ({lang}): {name!r} is not in "
                                        f"{texts[LANGS.index(lang)]!r}")
        for english, names in table.items():
            if re.search(rf"\b{english}s?\b", texts[0], re.I):
                for lang, name in zip(LANGS[1:], names[1:]):
                    if name.lower() not in texts[LANGS.index(lang)].lower():
                        failures.append(f"{key} ({lang}): {english} is "
                                        f"{name!r}, not in "
                                        f"{texts[LANGS.index(lang)]!r}")

    # What the board says and shows, and the buttons it offers.
    said = set(re.findall(r'\bsay\([^,]+,\s*"([^"]+)"', board))
    shown = set(re.findall(r'\bmenu\([^,]+,\s*"(\w+)', board))
    offered = set()
    for group in re.findall(r'buttons\s*\+?=\s*\[([^\]]*)\]', board) + \
            re.findall(r'\bmenu\([^;]*?\[([^\]]*)\]\)', board):
        offered.update(b for b in re.findall(r'"([^"]+)"', group))
    offered = {b for b in offered if not b.startswith("move ")}
    handled = set(re.findall(r'\bb == "(\w+)"', board))
    # and the game's actions, by the table of buttons and their routes'
    # action names ("yesresign", "resign", ...)
    table = re.search(r'list games = \[([^\]]*)\]', board)
    if table:
        handled.update(re.findall(r'"(\w+)"', table.group(1))[0::2])
    if not said or not shown or not offered or not handled:
        failures.append("the board script's words, menus or buttons were "
                        "not found")
    for key in sorted(said | shown):
        if key not in words:
            failures.append(f"the board uses the word {key!r}, which has no "
                            f"text")
    leaves = set()
    for button, menu in menus.items():
        fields = menu.split("\n")
        if fields[0].split()[0] not in words:
            failures.append(f"submenu {button}: no text {fields[0]!r}")
        for choice in fields[1:]:
            if choice not in menus:
                leaves.add(choice)
        offered.update(fields[1:])
    for choice in sorted(leaves):
        if choice.split()[0] not in handled and choice not in CLOSING:
            failures.append(f"the submenu choice {choice!r} is not one the "
                            f"board handles")
    for button in sorted(offered - CLOSING):   # they close a dialog
        if button not in menus and button.split()[0] not in handled:
            failures.append(f"the board offers {button!r} but handles no "
                            f"such button")

    # The buttons the words script keeps from the board are these.
    words_text = pathlib.Path(args.words).read_text(encoding="utf-8")
    closing = set(re.findall(r'button != "(\w+)"', words_text))
    if closing != CLOSING:
        failures.append(f"the words script closes dialogs on {sorted(closing)}, "
                        f"not {sorted(CLOSING)}")

    # Everything fits a dialog, in every language.
    for lang in range(4):
        for button in sorted(offered):
            text = label(words, lang, button)
            if not text or len(text.encode()) > BUTTON_BYTES:
                failures.append(f"{button} ({LANGS[lang]}): label {text!r}")
        for key in shown | {m.split("\n")[0].split()[0] for m in menus.values()}:
            text = languages(words.get(key, ""))[lang]
            if len(text.encode()) > DIALOG_BYTES - 64:  # room for arguments
                failures.append(f"{key} ({LANGS[lang]}): {len(text.encode())}"
                                f" bytes for a dialog")

    for failure in failures:
        print(failure)
    print(f"{len(words)} words in {len(LANGS)} languages, {len(menus)} "
          f"submenus, {len(said | shown)} words and {len(offered)} buttons "
          f"of the board checked; {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
