# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""A small LSL evaluator: runs a script's own functions outside a world.

Interpreter(text, stubs) parses the script (lsl_lang.py), sets its globals
to their initial values, and call(name, *args) runs one of its functions
with LSL's semantics for what the board's logic uses: integer arithmetic
with C division, string and list functions with LSL's index rules, casts,
vectors, list comparison by length, && and || evaluating both sides, the
hashes (llSHA256String...). The library functions with effects in a world
(prims, chat, HTTP, HTTP-in: llRequestURL, llHTTPResponse,
llGetHTTPHeader...) are given by `stubs` (name -> Python function); so may
be any of the script's own functions, to record what the code under test
would do. event(name, ...) runs one of the default state's events (an
http_request too) as the world would. Anything else not implemented here
raises NotImplementedError, so a test cannot pass by skipping code.
"""

import functools
import hashlib
import math
import re

import lsl_lang
import lsl_table


class Key(str):
    """An LSL key: a string that stays a key inside lists."""


DEFAULTS = {"integer": 0, "float": 0.0, "string": "", "key": Key(""),
            "vector": (0.0, 0.0, 0.0), "rotation": (0.0, 0.0, 0.0, 1.0),
            "list": []}


class _Return(Exception):
    def __init__(self, value):
        self.value = value


def _i32(n):
    n &= 0xFFFFFFFF
    return n - (1 << 32) if n & 0x80000000 else n


def to_string(v):
    if isinstance(v, float):
        return f"{v:.6f}"
    if isinstance(v, tuple):
        return "<" + ", ".join(f"{x:.5f}" for x in v) + ">"
    if isinstance(v, list):
        return "".join(to_string(x) for x in v)
    return str(v)


def _leading(pattern, text, convert, default):
    m = re.match(pattern, text.strip())
    return convert(m.group()) if m else default


def cast(v, to):
    if to == "string":
        return to_string(v)
    if to == "key":
        return Key(to_string(v))
    if to == "list":
        return v if isinstance(v, list) else [v]
    if to == "integer":
        if isinstance(v, float):
            return _i32(int(v))
        if isinstance(v, str):
            if re.match(r"\s*[+-]?0[xX][0-9a-fA-F]", v):
                return _i32(int(v.strip(), 16))
            return _leading(r"[+-]?\d+", v, lambda s: _i32(int(s)), 0)
        return v
    if to == "float":
        if isinstance(v, str):
            return _leading(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", v,
                            float, 0.0)
        return float(v)
    if to in ("vector", "rotation"):
        parts = re.findall(r"[+-]?[\d.]+(?:[eE][+-]?\d+)?", to_string(v))
        size = 3 if to == "vector" else 4
        return tuple(float(p) for p in parts[:size]) \
            if len(parts) >= size else DEFAULTS[to]
    raise NotImplementedError(f"cast to {to}")


def convert(v, to):
    """Implicit conversion on assignment and argument passing."""
    if to == "float" and isinstance(v, int):
        return float(v)
    if to == "key" and isinstance(v, str):
        return Key(v)
    if to == "string" and isinstance(v, Key):
        return str(v)
    return v


def _range(seq, start, end):
    """LSL's start..end (negative from the end; start > end excludes)."""
    n = len(seq)
    if start < 0:
        start += n
    if end < 0:
        end += n
    if start <= end:
        start = max(start, 0)
        return seq[start:end + 1] if start < n and end >= 0 else seq[:0]
    return seq[:max(end + 1, 0)] + seq[max(start, 0):]


def _delete(seq, start, end):
    """llDeleteSubList: start..end removed (negative from the end); with
    start > end, what lies outside end+1..start-1."""
    n = len(seq)
    if start < 0:
        start += n
    if end < 0:
        end += n
    if start <= end:
        return seq[:max(start, 0)] + seq[end + 1:]
    return seq[max(end + 1, 0):max(start, 0)]


def _replace(seq, new, start, end):
    """llListReplaceList for start <= end within the list."""
    n = len(seq)
    if start < 0:
        start += n
    if end < 0:
        end += n
    if not 0 <= start <= end < n:
        raise NotImplementedError("llListReplaceList outside the list")
    return seq[:start] + new + seq[end + 1:]


def _item(lst, i):
    if i < 0:
        i += len(lst)
    return lst[i] if 0 <= i < len(lst) else None


def _parse(src, seps, spacers, keep_nulls):
    if spacers:
        raise NotImplementedError("llParseString2List with spacers")
    seps = [s for s in seps if s]
    if not seps:
        parts = [src]
    else:
        parts = re.split("|".join(re.escape(s) for s in
                                  sorted(seps, key=len, reverse=True)), src)
    return parts if keep_nulls else [p for p in parts if p != ""]


def _find(src, test):
    if not test:
        return -1
    for i in range(len(src) - len(test) + 1):
        if all(type(a) is type(b) and a == b
               for a, b in zip(src[i:i + len(test)], test)):
            return i
    return -1


def _trim(s, how):
    if how == 3:
        return s.strip()
    return s.lstrip() if how == 1 else s.rstrip()


LIBRARY = {
    "llGetSubString": lambda s, a, b: _range(s, a, b),
    "llSubStringIndex": lambda s, p: s.find(p),
    "llStringLength": len,
    "llToUpper": str.upper,
    "llToLower": str.lower,
    "llStringTrim": _trim,
    "llGetListLength": len,
    "llList2String": lambda l, i: "" if _item(l, i) is None
    else to_string(_item(l, i)),
    "llList2Integer": lambda l, i: 0 if _item(l, i) is None
    else cast(_item(l, i), "integer"),
    "llList2Float": lambda l, i: 0.0 if _item(l, i) is None
    else cast(_item(l, i), "float"),
    "llList2Key": lambda l, i: Key("") if _item(l, i) is None
    else Key(to_string(_item(l, i))),
    "llList2Vector": lambda l, i: _item(l, i)
    if isinstance(_item(l, i), tuple) else (0.0, 0.0, 0.0),
    "llList2List": _range,
    "llListFindList": _find,
    "llDeleteSubList": lambda l, a, b: _delete(l, a, b),
    "llListReplaceList": lambda l, new, a, b: _replace(l, new, a, b),
    "llDumpList2String": lambda l, sep: sep.join(to_string(x) for x in l),
    "llParseString2List": lambda s, seps, sp: _parse(s, seps, sp, False),
    "llParseStringKeepNulls": lambda s, seps, sp: _parse(s, seps, sp, True),
    "llFabs": abs,
    "llFloor": lambda f: _i32(math.floor(f)),
    "llRound": lambda f: _i32(math.floor(f + 0.5)),
    "llPow": math.pow,
    "llVecMag": lambda v: math.sqrt(sum(x * x for x in v)),
    # the hashes: lowercase hex of the string's UTF-8 bytes
    "llSHA256String": lambda s: hashlib.sha256(s.encode("utf-8")).hexdigest(),
    "llSHA1String": lambda s: hashlib.sha1(s.encode("utf-8")).hexdigest(),
    "llMD5String": lambda s, nonce: hashlib.md5(
        f"{s}:{nonce}".encode("utf-8")).hexdigest(),
}


def _arith(op, a, b):
    if isinstance(a, list) or isinstance(b, list):
        return (a if isinstance(a, list) else [a]) + \
            (b if isinstance(b, list) else [b])
    if isinstance(a, str) and isinstance(b, str):
        return a + b
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) == 3:
        if op == "+":
            return tuple(x + y for x, y in zip(a, b))
        if op == "-":
            return tuple(x - y for x, y in zip(a, b))
        if op == "*":
            return sum(x * y for x, y in zip(a, b))
    if isinstance(a, tuple) and not isinstance(b, tuple):
        return tuple(x * b if op == "*" else x / b for x in a)
    if isinstance(b, tuple) and op == "*":
        return tuple(a * y for y in b)
    if isinstance(a, int) and isinstance(b, int):
        if op == "+":
            return _i32(a + b)
        if op == "-":
            return _i32(a - b)
        if op == "*":
            return _i32(a * b)
        if b == 0:
            raise ZeroDivisionError("LSL math error: division by zero")
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        return _i32(q) if op == "/" else _i32(a - q * b)
    if op == "%":
        raise NotImplementedError("% of floats")
    return {"+": a + b, "-": a - b, "*": a * b}.get(op) if op != "/" \
        else a / b


def _binary(op, a, b):
    if op in "+-*/%":
        return _arith(op, a, b)
    if op in ("==", "!="):
        if isinstance(a, list) and isinstance(b, list):
            same = len(a) == len(b)  # LSL compares list lengths only
        else:
            same = a == b
        return int(same == (op == "=="))
    if op in ("<", "<=", ">", ">="):
        return int({"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op])
    if op == "&&":
        return int(bool(a) and bool(b))
    if op == "||":
        return int(bool(a) or bool(b))
    return _i32({"&": a & b, "|": a | b, "^": a ^ b, "<<": a << (b & 31),
                 ">>": a >> (b & 31)}[op])


@functools.lru_cache(maxsize=None)
def _parsed(text):
    """A script's syntax tree, parsed once: the evaluator never changes it,
    so tests that start many interpreters of one script share it."""
    return lsl_lang.parse(text)


class Interpreter:
    def __init__(self, text, stubs=None):
        script = _parsed(text)
        self.functions = {fn.name: fn for fn in script.functions}
        # the default state's events, run by event()
        self.events = {ev.name: ev for state in script.states
                       if state.name == "default" for ev in state.events}
        self.stubs = stubs or {}
        self.types = {}
        self.globals = {}
        for decl in script.globals:
            self.types[decl.name] = decl.type
            value = DEFAULTS[decl.type] if decl.init is None \
                else self.eval(decl.init, [])
            self.globals[decl.name] = convert(value, decl.type)

    def set(self, name, value):
        self.globals[name] = convert(value, self.types[name])

    def get(self, name):
        return self.globals[name]

    def call(self, name, *args):
        if name in self.stubs:
            return self.stubs[name](*args)
        if name in self.functions:
            return self._invoke(self.functions[name], args)
        if name in LIBRARY:
            return LIBRARY[name](*args)
        raise NotImplementedError(f"the evaluator has no {name}")

    def event(self, name, *args):
        """Runs the default state's event `name` as the world would."""
        if name not in self.events:
            raise NotImplementedError(f"the script has no event {name}")
        return self._invoke(self.events[name], args)

    def _invoke(self, fn, args):
        scope = {pname: (ptype, convert(arg, ptype))
                 for (ptype, pname), arg in zip(fn.params, args)}
        try:
            self.run(fn.body, [scope])
        except _Return as done:
            return convert(done.value, fn.returns)
        return None

    # -- statements
    def run(self, node, scopes):
        kind = node.kind
        if kind == "block":
            scopes = scopes + [{}]
            for item in node.body:
                self.run(item, scopes)
        elif kind == "decl":
            value = DEFAULTS[node.type] if node.init is None \
                else self.eval(node.init, scopes)
            scopes[-1][node.name] = (node.type, convert(value, node.type))
        elif kind == "if":
            if self.truth(self.eval(node.cond, scopes)):
                self.run(node.then, scopes)
            elif node.other:
                self.run(node.other, scopes)
        elif kind == "while":
            while self.truth(self.eval(node.cond, scopes)):
                self.run(node.body, scopes)
        elif kind == "do":
            self.run(node.body, scopes)
            while self.truth(self.eval(node.cond, scopes)):
                self.run(node.body, scopes)
        elif kind == "for":
            for e in node.init:
                self.eval(e, scopes)
            while node.cond is None or self.truth(self.eval(node.cond,
                                                            scopes)):
                self.run(node.body, scopes)
                for e in node.step:
                    self.eval(e, scopes)
        elif kind == "return":
            raise _Return(None if node.value is None
                          else self.eval(node.value, scopes))
        elif kind == "expr":
            self.eval(node.expr, scopes)
        elif kind != "empty":
            raise NotImplementedError(f"statement {kind}")

    @staticmethod
    def truth(v):
        if isinstance(v, Key):
            return v not in ("", lsl_table.CONSTANTS["NULL_KEY"][1])
        if isinstance(v, tuple):
            return any(v[:3]) or (len(v) == 4 and v[3] != 1.0)
        return bool(v)

    # -- variables
    def _slot(self, name, scopes):
        for scope in reversed(scopes):
            if name in scope:
                return scope
        return None

    def read(self, node, scopes):
        scope = self._slot(node.name, scopes)
        if scope is not None:
            value = scope[node.name][1]
        elif node.name in self.globals:
            value = self.globals[node.name]
        else:
            value = lsl_table.CONSTANTS[node.name][1]
            if node.name == "NULL_KEY":
                value = Key(value)
        if node.member:
            return value["xyzs".index(node.member)]
        return value

    def write(self, node, value, scopes):
        scope = self._slot(node.name, scopes)
        vtype = scope[node.name][0] if scope is not None \
            else self.types[node.name]
        if node.member:
            old = list(self.read(lsl_lang.Node("var", node.line,
                                               name=node.name, member=None),
                                 scopes))
            old["xyzs".index(node.member)] = float(value)
            value = tuple(old)
        value = convert(value, vtype)
        if vtype == "integer" and isinstance(value, float):
            raise TypeError(f"line {node.line}: float into integer")
        if scope is not None:
            scope[node.name] = (vtype, value)
        else:
            self.globals[node.name] = value
        return value

    # -- expressions
    def eval(self, node, scopes):
        kind = node.kind
        if kind == "const":
            return node.value
        if kind == "var":
            return self.read(node, scopes)
        if kind in ("vector", "rotation"):
            return tuple(float(self.eval(p, scopes)) for p in node.parts)
        if kind == "list":
            return [self.eval(item, scopes) for item in node.items]
        if kind == "cast":
            return cast(self.eval(node.operand, scopes), node.to)
        if kind == "unary":
            v = self.eval(node.operand, scopes)
            if node.op == "-":
                return tuple(-x for x in v) if isinstance(v, tuple) else \
                    (_i32(-v) if isinstance(v, int) else -v)
            return int(not v) if node.op == "!" else _i32(~v)
        if kind == "incdec":
            old = self.read(node.target, scopes)
            new = self.write(node.target, old + (1 if node.op == "++" else -1),
                             scopes)
            return new if node.prefix else old
        if kind == "binary":
            # LSL evaluates the right operand first, and both of && and ||.
            b = self.eval(node.right, scopes)
            a = self.eval(node.left, scopes)
            return _binary(node.op, a, b)
        if kind == "assign":
            value = self.eval(node.value, scopes)
            if node.op != "=":
                value = _binary(node.op[0], self.read(node.target, scopes),
                                value)
            return self.write(node.target, value, scopes)
        if kind == "call":
            args = [self.eval(a, scopes) for a in node.args]
            return self.call(node.name, *args)
        raise NotImplementedError(f"expression {kind}")
