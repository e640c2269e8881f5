#!/usr/bin/python3
"""A static checker for LSL scripts: parse, resolve names, check types.

check(text) returns a list of "line N: message" findings, empty for a
script that would compile: every function, constant and event must be in
lsl_table.py (or defined by the script), calls must have the right number
of arguments of the right types, assignments, returns, operators and event
parameters must type-check as LSL's compiler does them (integer widens to
float; string and key convert both ways; nothing else is implicit).
Run as a program it checks the scripts named and exits 1 on any finding.
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


def main(paths):
    failed = False
    for path in paths:
        findings = check(open(path, encoding="utf-8").read())
        for finding in findings:
            print(f"{path}: {finding}")
        failed = failed or bool(findings)
        if not findings:
            print(f"{path}: no findings")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
