#!/usr/bin/python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""The LSL checker on the board's scripts, and on planted mistakes.

Every script must check clean, and their link messages agree (each number
one sends is handled by another). Each planted mistake (a misspelt
function, constant or event, a wrong number or type of arguments, a bad
assignment, return or operator, an undeclared variable, a syntax error, a
link message nobody handles or nobody sends, a function or event
OpenSimulator 0.9.2.2 lacks) edits one place of a copy of one script; the checker must report it on the line of the edit with the
expected words.
Usage: check_test.py BOARD_SCRIPT RENDER_SCRIPT KEEP_SCRIPT WORDS_SCRIPT
"""

import sys

import lsl_check

# (which script: "board", "render", "keep" or "words", what is planted, the text replaced
#  (its first occurrence), the new text, words the finding must hold)
PLANTS = [
    ("board", "misspelt function", "llGetSubString(token, 0, 0)",
     "llGetSubstring(token, 0, 0)", "unknown function llGetSubstring"),
    ("render", "misspelt constant", "PRIM_POS_LOCAL, ZERO_VECTOR",
     "PRIM_POSITION_LOCAL, ZERO_VECTOR",
     "unknown name PRIM_POSITION_LOCAL"),
    ("render", "missing argument", "llListFindList(SCHEMES, [gScheme])",
     "llListFindList(SCHEMES)", "llListFindList takes 2 arguments, given 1"),
    ("words", "arguments swapped", "llSetText(text, <1, 1, 1>, 1.0)",
     "llSetText(text, 1.0, <1, 1, 1>)", "llSetText argument 2 is vector, given float"),
    ("words", "list where a string goes", "llOwnerSay(text)", "llOwnerSay([text])",
     "llOwnerSay argument 1 is string, given list"),
    ("render", "float into an integer", "integer file = (integer)(st.x * 10.0);",
     "integer file = st.x * 10.0;", "file is integer, given float"),
    ("board", "float added to an integer", "++gActTries;", "gActTries += 0.5;",
     "gActTries is integer, += given float"),
    ("render", "wrong return type",
     "return llGetSubString(\"abcdefghij\", file, file) + (string)(rank + 1);",
     "return file;", "returns integer, declared string"),
    ("board", "value from a void function", "return llGetOwner() ==",
     "return llSay(0, \"\") ==", "void == key is not allowed"),
    ("board", "string minus a string", "return \"r\";", "return \"r\" - \"s\";",
     "string - string is not allowed"),
    ("board", "undeclared variable", "gUrl = text;", "gUrlGranted = text;",
     "unknown name gUrlGranted"),
    ("render", "unknown member", "if (st.x < 0.0)", "if (st.w < 0.0)",
     "st.w: no such member"),
    ("board", "misspelt event", "on_rez(integer param)", "on_rezz(integer param)",
     "unknown event on_rezz"),
    ("render", "event parameter type", "touch_start(integer n)", "touch_start(string n)",
     "event touch_start takes (integer)"),
    ("board", "unknown state", "resume();\n    }\n\n    // A new owner",
     "state playing;\n    }\n\n    // A new owner", "unknown state playing"),
    ("board", "missing semicolon", "gUrl = \"\"; gPushed = FALSE; gUrlDue = -1.0;",
     "gUrl = \"\" gPushed = FALSE; gUrlDue = -1.0;", "expected ';'"),
    ("render", "vector where a float goes", "llFabs(run.x)", "llFabs(run)",
     "llFabs argument 1 is float, given vector"),
    ("render", "misspelt event", "link_message(integer sender",
     "link_messages(integer sender", "unknown event link_messages"),
    ("render", "message event's parameters", "link_message(integer sender, "
     "integer num, string text, key id)", "link_message(integer sender, "
     "string num, string text, key id)", "event link_message takes"),
    ("board", "message sent to nobody", "render(KR_HITS,", "render(7109,",
     "link message 7109 is handled by no other"),
    ("render", "message handled, never sent", "num == KR_DEBUG",
     "num == 7109", "link message 7109 is handled but no other"),
    ("render", "message handled by its sender", "LINK_THIS, KB_READY,",
     "LINK_THIS, KR_BOARD,", "link message 7101 is sent and handled by "
     "this script"),
    ("words", "message handled, never sent", "num == KW_LANG",
     "num == 7509", "link message 7509 is handled but no other"),
    ("words", "pressed button sent to nobody", "LINK_THIS, KB_PRESSED, button",
     "LINK_THIS, 7603, button", "link message 7603 is handled by no other"),
    ("keep", "keeper's answer sent to nobody", "LINK_THIS, KB_KEPT, gKept",
     "LINK_THIS, 7404, gKept", "link message 7404 is handled by no other"),
    ("keep", "delivery handed to nobody", "LINK_THIS, KB_PUSHED, body",
     "LINK_THIS, 7405, body", "link message 7405 is handled by no other"),
    ("keep", "HTTP-in event's parameters", "http_request(key id, string method, "
     "string body)", "http_request(key id, integer method, string body)",
     "event http_request takes"),
    ("keep", "answer to a delivery without its status",
     "llHTTPResponse(id, 405, \"POST only\")", "llHTTPResponse(id, \"POST only\")",
     "llHTTPResponse takes 3 arguments, given 2"),
    ("keep", "a hash Second Life only",
     "llSHA256String(gSecret + body + gSecret)",
     "llHMAC(gSecret, body, \"sha256\")",
     "llHMAC is not in OpenSimulator 0.9.2.2"),
    ("board", "linkset data (Second Life only)",
     "llMessageLinked(LINK_THIS, KK_SAVE, llDumpList2String(",
     "llLinksetDataWrite(\"khet\", llDumpList2String(",
     "llLinksetDataWrite is not in OpenSimulator 0.9.2.2"),
    ("keep", "linkset data's event (Second Life only)",
     "changed(integer change) {", "linkset_data(integer action, string name, "
     "string value) {", "linkset_data is not in OpenSimulator 0.9.2.2"),
    ("render", "a list function Second Life only",
     "llList2Integer(gPieceLinks, used)",
     "llList2Integer(llList2ListSlice(gPieceLinks, 0, -1, 1, 0), used)",
     "llList2ListSlice is not in OpenSimulator 0.9.2.2"),
    ("board", "message number not a constant",
     "llMessageLinked(LINK_THIS, num, text, NULL_KEY)",
     "llMessageLinked(LINK_THIS, num + 1, text, NULL_KEY)",
     "a number that is not a constant"),
]


def findings_for(texts, which):
    """The checker's findings on `which` script, its link messages with
    the others' included, as "line N: ..." of that script."""
    found = lsl_check.check(texts[which])
    for finding in lsl_check.check_linkset(texts):
        name, _, rest = finding.partition(": ")
        if name == which:
            found.append(rest)
    return found


def main(board, render, keep, words):
    texts = {"board": open(board, encoding="utf-8").read(),
             "render": open(render, encoding="utf-8").read(),
             "keep": open(keep, encoding="utf-8").read(),
             "words": open(words, encoding="utf-8").read()}
    failures = []
    for which in texts:
        clean = findings_for(texts, which)
        if clean:
            failures.append(f"the {which} script itself: {clean}")
    for which, what, old, new, words in PLANTS:
        text = texts[which]
        at = text.find(old)
        if at < 0:
            failures.append(f"{what}: {old!r} is not in the {which} script")
            continue
        line = text.count("\n", 0, at) + 1
        planted = dict(texts, **{which: text[:at] + new + text[at + len(old):]})
        findings = findings_for(planted, which)
        hit = [f for f in findings
               if f.startswith(f"line {line}: ") and words in f]
        status = "caught" if hit else "MISSED"
        print(f"{status:7} {which:6} {what:30} {hit[0] if hit else findings}")
        if not hit:
            failures.append(f"{what}: wanted {words!r} on line {line}")
    if failures:
        print("\n".join(["FAIL"] + failures))
        return 1
    print(f"all {len(PLANTS)} planted mistakes caught; the {len(texts)} "
          f"scripts are clean and their link messages agree")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
