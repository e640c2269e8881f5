#!/usr/bin/python3
"""The LSL checker on the board script, and on copies with planted mistakes.

The script itself must check clean. Each planted mistake (a misspelt
function, constant or event, a wrong number or type of arguments, a bad
assignment, return or operator, an undeclared variable, a syntax error)
edits one place of a copy of the script; the checker must report it on the
line of the edit with the expected words. Usage: check_test.py SCRIPT
"""

import sys

import lsl_check

# (what is planted, the text replaced (its first occurrence), the new text,
#  words the finding must hold)
PLANTS = [
    ("misspelt function", "llGetSubString(token, 0, 0)",
     "llGetSubstring(token, 0, 0)", "unknown function llGetSubstring"),
    ("misspelt constant", "PRIM_POS_LOCAL, squareCentre(sq, 0.01)",
     "PRIM_POSITION_LOCAL, squareCentre(sq, 0.01)",
     "unknown name PRIM_POSITION_LOCAL"),
    ("missing argument", "llListFindList(gPieceLinks, [link])",
     "llListFindList(gPieceLinks)", "llListFindList takes 2 arguments, given 1"),
    ("arguments swapped", "llSetText(text, <1, 1, 1>, 1.0)",
     "llSetText(text, 1.0, <1, 1, 1>)", "llSetText argument 2 is vector, given float"),
    ("list where a string goes", "llOwnerSay(text)", "llOwnerSay([text])",
     "llOwnerSay argument 1 is string, given list"),
    ("float into an integer", "integer file = (integer)(st.x * 10.0);",
     "integer file = st.x * 10.0;", "file is integer, given float"),
    ("float added to an integer", "++gActTries;", "gActTries += 0.5;",
     "gActTries is integer, += given float"),
    ("wrong return type", "return squareName(file, rank);",
     "return file;", "returns integer, declared string"),
    ("value from a void function", "return llGetOwner() ==",
     "return llSay(0, \"\") ==", "void == key is not allowed"),
    ("string minus a string", "return \"r\";", "return \"r\" - \"s\";",
     "string - string is not allowed"),
    ("undeclared variable", "gPickWho = who;", "gPickWhom = who;",
     "unknown name gPickWhom"),
    ("unknown member", "if (st.x < 0.0)", "if (st.w < 0.0)",
     "st.w: no such member"),
    ("misspelt event", "on_rez(integer param)", "on_rezz(integer param)",
     "unknown event on_rezz"),
    ("event parameter type", "touch_start(integer n)", "touch_start(string n)",
     "event touch_start takes (integer)"),
    ("unknown state", "llResetScript();\n    }\n\n    changed",
     "state playing;\n    }\n\n    changed", "unknown state playing"),
    ("missing semicolon", "gPick = sq; gPickMoves = moves;",
     "gPick = sq gPickMoves = moves;", "expected ';'"),
]


def main(path):
    text = open(path, encoding="utf-8").read()
    failures = []
    clean = lsl_check.check(text)
    if clean:
        failures.append(f"the script itself: {clean}")
    for what, old, new, words in PLANTS:
        at = text.find(old)
        if at < 0:
            failures.append(f"{what}: {old!r} is not in the script")
            continue
        line = text.count("\n", 0, at) + 1
        findings = lsl_check.check(text[:at] + new + text[at + len(old):])
        hit = [f for f in findings
               if f.startswith(f"line {line}: ") and words in f]
        status = "caught" if hit else "MISSED"
        print(f"{status:7} {what:28} {hit[0] if hit else findings}")
        if not hit:
            failures.append(f"{what}: wanted {words!r} on line {line}")
    if failures:
        print("\n".join(["FAIL"] + failures))
        return 1
    print(f"all {len(PLANTS)} planted mistakes caught; the script is clean")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
