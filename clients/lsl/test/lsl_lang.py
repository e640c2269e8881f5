# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""The LSL language: a tokenizer and a parser into a small syntax tree.

parse(text) returns a Script (globals, functions, states) or raises
LslSyntaxError naming the line. Every node is a Node with a kind, a line and
its fields; lsl_check.py types the tree, lsl_eval.py runs parts of it. The
grammar is the language's: C-like statements and expressions, casts,
vector and rotation literals <x, y, z[, s]>, lists [a, b], member access
v.x, jumps and labels, states and their events. As in LSL, && and || share
one precedence level.
"""

import re

TYPES = ("integer", "float", "string", "key", "vector", "rotation", "list")
KEYWORDS = set(TYPES) | {"if", "else", "for", "while", "do", "return", "jump",
                         "state", "default", "quaternion"}

_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\n]+|//[^\n]*|/\*.*?\*/)
  | (?P<float>(\d+\.\d*|\.\d+)([eE][+-]?\d+)?|\d+[eE][+-]?\d+)
  | (?P<int>0[xX][0-9a-fA-F]+|\d+)
  | (?P<string>"(\\.|[^"\\])*")
  | (?P<name>[A-Za-z_]\w*)
  | (?P<op>\+\+|--|\+=|-=|\*=|/=|%=|==|!=|<=|>=|&&|\|\||<<|>>|[-+*/%=<>!~&|^()\[\]{},;.@])
""", re.X | re.S)

# Binary operators by precedence, lowest first (LSL's grammar).
_LEVELS = [("&&", "||"), ("|",), ("^",), ("&",), ("==", "!="),
           ("<", "<=", ">", ">="), ("<<", ">>"), ("+", "-"), ("*", "/", "%")]
_ASSIGN = ("=", "+=", "-=", "*=", "/=", "%=")


class LslSyntaxError(Exception):
    def __init__(self, line, message):
        super().__init__(f"line {line}: {message}")
        self.line = line


class Node:
    def __init__(self, kind, line, **fields):
        self.kind = kind
        self.line = line
        self.__dict__.update(fields)

    def __repr__(self):
        return f"Node({self.kind}@{self.line})"


def _unescape(body):
    out = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            i += 1
            out.append({"n": "\n", "t": "    "}.get(body[i], body[i]))
        else:
            out.append(c)
        i += 1
    return "".join(out)


def tokenize(text):
    """(kind, value, line) tuples, ending with ("eof", "", line)."""
    tokens = []
    pos = 0
    line = 1
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise LslSyntaxError(line, f"unexpected character {text[pos]!r}")
        kind = m.lastgroup
        value = m.group()
        if kind == "float":
            tokens.append(("float", float(value.rstrip("fF")), line))
        elif kind == "int":
            tokens.append(("int", int(value, 0), line))
        elif kind == "string":
            tokens.append(("string", _unescape(value[1:-1]), line))
        elif kind == "name":
            tokens.append(("kw" if value in KEYWORDS else "name", value, line))
        elif kind == "op":
            tokens.append(("op", value, line))
        line += value.count("\n")
        pos = m.end()
    tokens.append(("eof", "", line))
    return tokens


class _Parser:
    def __init__(self, text):
        self.tokens = tokenize(text)
        self.i = 0

    # -- helpers
    def peek(self, ahead=0):
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def at(self, value, ahead=0):
        kind, v, _ = self.peek(ahead)
        return kind in ("op", "kw") and v == value

    def take(self):
        token = self.tokens[self.i]
        self.i += 1
        return token

    def expect(self, value):
        kind, v, line = self.take()
        if kind not in ("op", "kw") or v != value:
            raise LslSyntaxError(line, f"expected {value!r}, found {v!r}")
        return line

    def name(self):
        kind, v, line = self.take()
        if kind != "name":
            raise LslSyntaxError(line, f"expected a name, found {v!r}")
        return v

    def is_type(self, ahead=0):
        kind, v, _ = self.peek(ahead)
        return kind == "kw" and v in TYPES + ("quaternion",)

    def type_(self):
        _, v, _ = self.take()
        return "rotation" if v == "quaternion" else v

    # -- top level
    def script(self):
        globals_, functions, states = [], [], []
        while not (self.at("default") or self.at("state")):
            kind, v, line = self.peek()
            if kind == "eof":
                raise LslSyntaxError(line, "the script has no default state")
            if self.is_type() and self.peek(1)[0] == "name" and \
                    not (self.peek(2)[1] == "(" and self.peek(2)[0] == "op"):
                globals_.append(self.declaration())
                self.expect(";")
            else:
                functions.append(self.function())
        while self.peek()[0] != "eof":
            line = self.peek()[2]
            if self.at("default"):
                self.take()
                state_name = "default"
            else:
                self.expect("state")
                state_name = self.name()
            self.expect("{")
            events = []
            while not self.at("}"):
                events.append(self.function(event=True))
            self.expect("}")
            states.append(Node("state", line, name=state_name, events=events))
        return Node("script", 1, globals=globals_, functions=functions,
                    states=states)

    def function(self, event=False):
        line = self.peek()[2]
        returns = None
        if not event and self.is_type():
            returns = self.type_()
        fname = self.name()
        self.expect("(")
        params = []
        while not self.at(")"):
            if params:
                self.expect(",")
            if not self.is_type():
                raise LslSyntaxError(self.peek()[2], "a parameter needs a type")
            ptype = self.type_()
            params.append((ptype, self.name()))
        self.expect(")")
        body = self.block()
        return Node("event" if event else "function", line, name=fname,
                    returns=returns, params=params, body=body)

    def declaration(self):
        line = self.peek()[2]
        vtype = self.type_()
        vname = self.name()
        init = None
        if self.at("="):
            self.take()
            init = self.expression()
        return Node("decl", line, type=vtype, name=vname, init=init)

    # -- statements
    def block(self):
        line = self.expect("{")
        body = []
        while not self.at("}"):
            if self.peek()[0] == "eof":
                raise LslSyntaxError(line, "a block is not closed")
            body.append(self.statement())
        self.expect("}")
        return Node("block", line, body=body)

    def statement(self):
        kind, v, line = self.peek()
        if self.at(";"):
            self.take()
            return Node("empty", line)
        if self.at("{"):
            return self.block()
        if self.is_type():
            node = self.declaration()
            self.expect(";")
            return node
        if self.at("if"):
            self.take()
            self.expect("(")
            cond = self.expression()
            self.expect(")")
            then = self.statement()
            other = None
            if self.at("else"):
                self.take()
                other = self.statement()
            return Node("if", line, cond=cond, then=then, other=other)
        if self.at("while"):
            self.take()
            self.expect("(")
            cond = self.expression()
            self.expect(")")
            return Node("while", line, cond=cond, body=self.statement())
        if self.at("do"):
            self.take()
            body = self.statement()
            self.expect("while")
            self.expect("(")
            cond = self.expression()
            self.expect(")")
            self.expect(";")
            return Node("do", line, cond=cond, body=body)
        if self.at("for"):
            self.take()
            self.expect("(")
            init = self.expression_list(";")
            self.expect(";")
            cond = None if self.at(";") else self.expression()
            self.expect(";")
            step = self.expression_list(")")
            self.expect(")")
            return Node("for", line, init=init, cond=cond, step=step,
                        body=self.statement())
        if self.at("return"):
            self.take()
            value = None if self.at(";") else self.expression()
            self.expect(";")
            return Node("return", line, value=value)
        if self.at("jump"):
            self.take()
            target = self.name()
            self.expect(";")
            return Node("jump", line, target=target)
        if self.at("@"):
            self.take()
            label = self.name()
            self.expect(";")
            return Node("label", line, name=label)
        if self.at("state"):
            self.take()
            target = "default" if self.at("default") else None
            if target:
                self.take()
            else:
                target = self.name()
            self.expect(";")
            return Node("goto_state", line, target=target)
        node = self.expression()
        self.expect(";")
        return Node("expr", line, expr=node)

    def expression_list(self, end):
        out = []
        while not self.at(end):
            if out:
                self.expect(",")
            out.append(self.expression())
        return out

    # -- expressions
    def expression(self):
        kind, v, line = self.peek()
        if kind == "name" and self.peek(1)[0] == "op" and \
                (self.peek(1)[1] in _ASSIGN or
                 (self.peek(1)[1] == "." and self.peek(3)[1] in _ASSIGN)):
            target = self.lvalue()
            op = self.take()[1]
            value = self.expression()
            return Node("assign", line, op=op, target=target, value=value)
        return self.binary(0)

    def lvalue(self):
        line = self.peek()[2]
        vname = self.name()
        member = None
        if self.at("."):
            self.take()
            member = self.name()
        return Node("var", line, name=vname, member=member)

    def binary(self, level, no_gt=False):
        if level == len(_LEVELS):
            return self.unary(no_gt)
        left = self.binary(level + 1, no_gt)
        while self.peek()[0] == "op" and self.peek()[1] in _LEVELS[level] and \
                not (no_gt and self.peek()[1] in (">", ">=", ">>")):
            _, op, line = self.take()
            right = self.binary(level + 1, no_gt)
            left = Node("binary", line, op=op, left=left, right=right)
        return left

    def unary(self, no_gt=False):
        kind, v, line = self.peek()
        if kind == "op" and v in ("-", "!", "~"):
            self.take()
            return Node("unary", line, op=v, operand=self.unary(no_gt))
        if kind == "op" and v in ("++", "--"):
            self.take()
            return Node("incdec", line, op=v, prefix=True, target=self.lvalue())
        if self.at("(") and self.is_type(1) and self.at(")", 2):
            self.take()
            to = self.type_()
            self.take()
            return Node("cast", line, to=to, operand=self.unary(no_gt))
        return self.postfix(no_gt)

    def postfix(self, no_gt):
        kind, v, line = self.peek()
        if kind == "name" and self.peek(1)[0] == "op" and \
                self.peek(1)[1] in ("++", "--"):
            target = self.lvalue()
            return Node("incdec", line, op=self.take()[1], prefix=False,
                        target=target)
        if kind == "name" and self.at(".", 1):
            target = self.lvalue()
            if self.peek()[0] == "op" and self.peek()[1] in ("++", "--"):
                return Node("incdec", line, op=self.take()[1], prefix=False,
                            target=target)
            return target
        return self.primary(no_gt)

    def primary(self, no_gt):
        kind, v, line = self.take()
        if kind == "int":
            return Node("const", line, type="integer", value=v)
        if kind == "float":
            return Node("const", line, type="float", value=v)
        if kind == "string":
            return Node("const", line, type="string", value=v)
        if kind == "name":
            if self.at("("):
                self.take()
                args = self.expression_list(")")
                self.expect(")")
                return Node("call", line, name=v, args=args)
            return Node("var", line, name=v, member=None)
        if kind == "op" and v == "(":
            node = self.expression()
            self.expect(")")
            return node
        if kind == "op" and v == "[":
            items = self.expression_list("]")
            self.expect("]")
            return Node("list", line, items=items)
        if kind == "op" and v == "<":
            parts = [self.binary(0, no_gt=True)]
            while self.at(","):
                self.take()
                parts.append(self.binary(0, no_gt=True))
            self.expect(">")
            if len(parts) not in (3, 4):
                raise LslSyntaxError(line, "a vector has 3 parts, a rotation 4")
            return Node("vector" if len(parts) == 3 else "rotation", line,
                        parts=parts)
        raise LslSyntaxError(line, f"unexpected {v!r}")


def parse(text):
    return _Parser(text).script()
