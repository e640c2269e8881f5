#!/usr/bin/python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""A static checker for LSL scripts: parse, resolve names, check types.

check(text) returns a list of "line N: message" findings, empty for a
script that would compile on both Second Life and OpenSimulator 0.9.2.2:
every function, constant and event must be in lsl_table.py (or defined by
the script) and not one of those OpenSimulator lacks
(lsl_table.NOT_IN_OPENSIM), calls must have the right number
of arguments of the right types, assignments, returns, operators and event
parameters must type-check as LSL's compiler does them (integer widens to
float; string and key convert both ways; nothing else is implicit).
check_linkset({name: text}) checks the link messages between scripts that
share a prim: every number one sends is handled by another, and back.
Run as a program it checks the scripts named (and, given more than one,
their link messages) and exits 1 on any finding.
"""

import sys

import lsl_lang
import lsl_table

NUMERIC = ("integer", "float")


def assignable(src, dst):
    return src == dst or (src == "integer" and dst == "float") or \
        {src, dst} == {"string", "key"}


def binary_type(op, a, b):
    """The type of `a op b`, or None when LSL refuses it."""
    if op in ("&&", "||", "|", "^", "&", "<<", ">>"):
        return "integer" if a == b == "integer" else None
    if op in ("==", "!="):
        if a == b or (a in NUMERIC and b in NUMERIC) or \
                {a, b} <= {"string", "key"}:
            return "integer"
        return None
    if op in ("<", "<=", ">", ">="):
        return "integer" if a in NUMERIC and b in NUMERIC else None
    if op == "+" and "list" in (a, b):
        return "list"
    if a in NUMERIC and b in NUMERIC and op in "+-*/%":
        if op == "%":
            return "integer" if a == b == "integer" else None
        return "integer" if a == b == "integer" else "float"
    if op == "+" and {a, b} <= {"string", "key"} and "string" in (a, b):
        return "string"
    table = {
        ("+", "vector", "vector"): "vector", ("-", "vector", "vector"): "vector",
        ("*", "vector", "vector"): "float", ("%", "vector", "vector"): "vector",
        ("+", "rotation", "rotation"): "rotation",
        ("-", "rotation", "rotation"): "rotation",
        ("*", "rotation", "rotation"): "rotation",
        ("/", "rotation", "rotation"): "rotation",
        ("*", "vector", "rotation"): "vector",
        ("/", "vector", "rotation"): "vector",
    }
    if (op, a, b) in table:
        return table[(op, a, b)]
    if op in "*/" and a == "vector" and b in NUMERIC:
        return "vector"
    if op == "*" and a in NUMERIC and b == "vector":
        return "vector"
    return None


class Checker:
    def __init__(self):
        self.findings = []
        self.functions = {}
        self.globals = {}
        self.states = set()

    def error(self, line, message):
        self.findings.append(f"line {line}: {message}")

    def platform(self, line, name):
        """A finding if OpenSimulator 0.9.2.2 lacks the library's `name`."""
        if name in lsl_table.NOT_IN_OPENSIM:
            self.error(line, f"{name} is not in OpenSimulator 0.9.2.2")

    # -- declarations
    def check_script(self, script):
        for fn in script.functions:
            if fn.name in self.functions or fn.name in lsl_table.FUNCTIONS:
                self.error(fn.line, f"function {fn.name} defined twice")
            self.functions[fn.name] = (fn.returns or "",
                                       [t for t, _ in fn.params])
        self.states = {s.name for s in script.states}
        for decl in script.globals:
            if decl.init is not None:
                self.check_init(decl, [{}], constant_only=True)
            self.declare(self.globals, decl)
        for fn in script.functions:
            self.check_body(fn, fn.returns or "")
        seen = set()
        for state in script.states:
            if state.name in seen:
                self.error(state.line, f"state {state.name} defined twice")
            seen.add(state.name)
            events = set()
            for event in state.events:
                want = lsl_table.EVENTS.get(event.name)
                if want is None:
                    self.error(event.line, f"unknown event {event.name}")
                elif [t for t, _ in event.params] != want:
                    self.error(event.line, f"event {event.name} takes "
                               f"({', '.join(want)})")
                self.platform(event.line, event.name)
                if event.name in events:
                    self.error(event.line, f"event {event.name} twice in "
                               f"state {state.name}")
                events.add(event.name)
                self.check_body(event, "")

    def declare(self, scope, decl):
        if decl.name in scope:
            self.error(decl.line, f"{decl.name} declared twice")
        if decl.name in lsl_table.CONSTANTS:
            self.error(decl.line, f"{decl.name} is an LSL constant")
        scope[decl.name] = decl.type

    def check_init(self, decl, scopes, constant_only=False):
        if constant_only and decl.init.kind in ("call",):
            self.error(decl.line, "a global's value must be a constant")
        got = self.expr(decl.init, scopes)
        if got and not assignable(got, decl.type):
            self.error(decl.line, f"{decl.name} is {decl.type}, given {got}")

    def check_body(self, fn, returns):
        self.returns = returns
        self.labels = set()
        self.collect_labels(fn.body)
        scope = {}
        for ptype, pname in fn.params:
            scope[pname] = ptype
        self.statement(fn.body, [scope])

    def collect_labels(self, node):
        if node is None:
            return
        if node.kind == "label":
            self.labels.add(node.name)
        for child in ("body", "then", "other"):
            value = getattr(node, child, None)
            if isinstance(value, list):
                for item in value:
                    self.collect_labels(item)
            elif isinstance(value, lsl_lang.Node):
                self.collect_labels(value)

    # -- statements
    def statement(self, node, scopes):
        kind = node.kind
        if kind == "block":
            scopes = scopes + [{}]
            for item in node.body:
                self.statement(item, scopes)
        elif kind == "decl":
            if node.init is not None:
                self.check_init(node, scopes)
            self.declare(scopes[-1], node)
        elif kind == "if":
            self.expr(node.cond, scopes)
            self.statement(node.then, scopes)
            if node.other:
                self.statement(node.other, scopes)
        elif kind in ("while", "do"):
            self.expr(node.cond, scopes)
            self.statement(node.body, scopes)
        elif kind == "for":
            for e in node.init + node.step:
                self.expr(e, scopes)
            if node.cond:
                self.expr(node.cond, scopes)
            self.statement(node.body, scopes)
        elif kind == "return":
            if node.value is None:
                if self.returns:
                    self.error(node.line, f"return needs a {self.returns}")
            else:
                got = self.expr(node.value, scopes)
                if not self.returns:
                    self.error(node.line, "return with a value from a "
                               "function that returns nothing")
                elif got and not assignable(got, self.returns):
                    self.error(node.line, f"returns {got}, declared "
                               f"{self.returns}")
        elif kind == "jump":
            if node.target not in self.labels:
                self.error(node.line, f"jump to unknown label {node.target}")
        elif kind == "goto_state":
            if node.target not in self.states:
                self.error(node.line, f"unknown state {node.target}")
        elif kind == "expr":
            self.expr(node.expr, scopes)

    # -- expressions: each returns its type, or None after a finding
    def lookup(self, name, scopes, line):
        for scope in reversed(scopes):
            if name in scope:
                return scope[name]
        if name in self.globals:
            return self.globals[name]
        if name in lsl_table.CONSTANTS:
            self.platform(line, name)
            return lsl_table.CONSTANTS[name][0]
        self.error(line, f"unknown name {name}")
        return None

    def variable(self, node, scopes, assigning=False):
        vtype = self.lookup(node.name, scopes, node.line)
        if assigning and node.name in lsl_table.CONSTANTS and \
                not any(node.name in s for s in scopes) and \
                node.name not in self.globals:
            self.error(node.line, f"cannot assign to constant {node.name}")
        if node.member is None or vtype is None:
            return vtype
        if vtype not in ("vector", "rotation") or node.member not in "xyzs" \
                or (node.member == "s" and vtype == "vector"):
            self.error(node.line, f"{node.name}.{node.member}: no such member")
            return None
        return "float"

    def expr(self, node, scopes):
        kind = node.kind
        if kind == "const":
            return node.type
        if kind == "var":
            return self.variable(node, scopes)
        if kind in ("vector", "rotation"):
            for part in node.parts:
                got = self.expr(part, scopes)
                if got and got not in NUMERIC:
                    self.error(node.line, f"a {kind} part must be a number, "
                               f"not {got}")
            return kind
        if kind == "list":
            for item in node.items:
                got = self.expr(item, scopes)
                if got == "list":
                    self.error(node.line, "a list cannot hold a list")
            return "list"
        if kind == "cast":
            got = self.expr(node.operand, scopes)
            if got is None:
                return node.to
            ok = got == node.to or node.to == "string" or got == "string" or \
                (got in NUMERIC and node.to in NUMERIC) or \
                (node.to == "list") or (got == "key" and node.to == "string")
            if not ok:
                self.error(node.line, f"cannot cast {got} to {node.to}")
            return node.to
        if kind == "unary":
            got = self.expr(node.operand, scopes)
            if got is None:
                return None
            if node.op == "-" and got in ("integer", "float", "vector",
                                          "rotation"):
                return got
            if node.op in "!~" and got == "integer":
                return "integer"
            self.error(node.line, f"{node.op} does not apply to {got}")
            return None
        if kind == "incdec":
            got = self.variable(node.target, scopes, assigning=True)
            if got and got not in NUMERIC:
                self.error(node.line, f"{node.op} needs a number, not {got}")
            return got
        if kind == "binary":
            a = self.expr(node.left, scopes)
            b = self.expr(node.right, scopes)
            if a is None or b is None:
                return None
            got = binary_type(node.op, a, b)
            if got is None:
                self.error(node.line, f"{a} {node.op} {b} is not allowed")
            return got
        if kind == "assign":
            target = self.variable(node.target, scopes, assigning=True)
            value = self.expr(node.value, scopes)
            if target is None or value is None:
                return target
            if node.op == "=":
                result = value
            else:
                result = binary_type(node.op[0], target, value)
            if result is None or not assignable(result, target):
                self.error(node.line, f"{node.target.name} is {target}, "
                           f"{node.op} given {value}")
            return target
        if kind == "call":
            return self.call(node, scopes)
        raise AssertionError(kind)

    def call(self, node, scopes):
        spec = self.functions.get(node.name) or \
            lsl_table.FUNCTIONS.get(node.name)
        got = [self.expr(arg, scopes) for arg in node.args]
        if spec is None:
            self.error(node.line, f"unknown function {node.name}")
            return None
        if node.name not in self.functions:
            self.platform(node.line, node.name)
        returns, params = spec
        if len(got) != len(params):
            self.error(node.line, f"{node.name} takes {len(params)} "
                       f"arguments, given {len(got)}")
        else:
            for n, (have, want) in enumerate(zip(got, params), 1):
                if have and not assignable(have, want):
                    self.error(node.line, f"{node.name} argument {n} is "
                               f"{want}, given {have}")
        return returns or "void"


def check(text):
    try:
        script = lsl_lang.parse(text)
    except lsl_lang.LslSyntaxError as error:
        return [str(error)]
    checker = Checker()
    checker.check_script(script)
    return checker.findings


# -- link messages between the scripts of one prim

def _nodes(node):
    """Every Node under `node` (itself included)."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, lsl_lang.Node):
            yield item
            stack.extend(v for k, v in vars(item).items()
                         if k not in ("kind", "line"))


def _numbers(node, consts):
    """The integer an expression always is (a literal or a global never
    assigned), or None."""
    if node.kind == "const" and node.type == "integer":
        return node.value
    if node.kind == "var" and node.member is None:
        return consts.get(node.name)
    if node.kind == "unary" and node.op == "-":
        inner = _numbers(node.operand, consts)
        return None if inner is None else -inner
    return None


def link_messages(script):
    """(sent, handled) link message numbers of a parsed script.

    sent: {number: line} of every llMessageLinked, its number a literal or
    a constant global, or a parameter of the function around it filled
    with one at each call (one wrapper deep); a number it cannot tell is
    sent as None. handled: {number: line} of every `==` between a constant
    and link_message's number parameter, or a parameter of a function it
    is handed to, the function's parameter that carries it."""
    assigned = {n.target.name for n in _nodes(script)
                if n.kind in ("assign", "incdec")}
    consts = {d.name: d.init.value for d in script.globals
              if d.type == "integer" and d.init is not None and
              d.init.kind == "const" and d.name not in assigned}
    functions = {fn.name: fn for fn in script.functions}
    calls = [n for n in _nodes(script) if n.kind == "call"]
    sent = {}
    for fn in list(script.functions) + [ev for st in script.states
                                        for ev in st.events]:
        params = [name for _, name in fn.params]
        for call in _nodes(fn.body):
            if call.kind != "call" or call.name != "llMessageLinked" or \
                    len(call.args) != 4:
                continue
            arg = call.args[1]
            number = _numbers(arg, consts)
            if number is not None:
                sent.setdefault(number, call.line)
            elif arg.kind == "var" and arg.name in params and \
                    fn.kind == "function":
                at = params.index(arg.name)
                for outer in calls:
                    if outer.name == fn.name and len(outer.args) > at:
                        value = _numbers(outer.args[at], consts)
                        sent.setdefault(value, outer.line)
            else:
                sent.setdefault(None, call.line)
    # The variables that carry link_message's number: (function, name).
    carriers = set()
    for state in script.states:
        for ev in state.events:
            if ev.name == "link_message" and len(ev.params) == 4:
                carriers.add((id(ev), ev.params[1][1]))
                for call in _nodes(ev.body):
                    fn = functions.get(call.name) if call.kind == "call" \
                        else None
                    for at, arg in enumerate(getattr(call, "args", [])):
                        if fn and arg.kind == "var" and \
                                arg.name == ev.params[1][1] and \
                                at < len(fn.params):
                            carriers.add((id(fn), fn.params[at][1]))
    handled = {}
    for fn in list(script.functions) + [ev for st in script.states
                                        for ev in st.events]:
        for node in _nodes(fn.body):
            if node.kind != "binary" or node.op != "==":
                continue
            for var, other in ((node.left, node.right),
                               (node.right, node.left)):
                if var.kind == "var" and (id(fn), var.name) in carriers:
                    number = _numbers(other, consts)
                    if number is not None:
                        handled.setdefault(number, node.line)
    return sent, handled


def check_linkset(named_texts):
    """Findings about the link messages between scripts in one prim: each
    number one script sends must be handled by another, none sent and
    handled by the same script (it hears its own messages), each handled
    number sent by another script."""
    parsed = {}
    findings = []
    for name, text in named_texts.items():
        try:
            parsed[name] = link_messages(lsl_lang.parse(text))
        except lsl_lang.LslSyntaxError as error:
            findings.append(f"{name}: {error}")
    for name, (sent, handled) in parsed.items():
        others = [n for n in parsed if n != name]
        for number, line in sorted(sent.items(), key=lambda x: str(x[0])):
            if number is None:
                findings.append(f"{name}: line {line}: llMessageLinked with "
                                f"a number that is not a constant")
            elif number in handled:
                findings.append(f"{name}: line {line}: link message {number} "
                                f"is sent and handled by this script, which "
                                f"hears its own messages")
            elif not any(number in parsed[o][1] for o in others):
                findings.append(f"{name}: line {line}: link message {number} "
                                f"is handled by no other script")
        for number, line in sorted(handled.items()):
            if number not in sent and \
                    not any(number in parsed[o][0] for o in others):
                findings.append(f"{name}: line {line}: link message {number} "
                                f"is handled but no other script sends it")
    return findings


def main(paths):
    failed = False
    texts = {}
    for path in paths:
        texts[path] = open(path, encoding="utf-8").read()
        findings = check(texts[path])
        for finding in findings:
            print(f"{path}: {finding}")
        failed = failed or bool(findings)
        if not findings:
            print(f"{path}: no findings")
    if len(paths) > 1:
        findings = check_linkset(texts)
        for finding in findings:
            print(finding)
        if not findings:
            print("link messages: each one sent is handled by another script")
        failed = failed or bool(findings)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
