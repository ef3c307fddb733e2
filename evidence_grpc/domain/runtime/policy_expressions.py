"""The policy expression language of `if` conditions: `${{ flow.tags.risk == "high" and
matches(artifact.name, "^prod:") }}`.

Our own small recursive-descent parser over a whitelisted grammar, never Python's eval:

    expression := or
    or         := and ("or" and)*
    and        := not ("and" not)*
    not        := "not" not | comparison
    comparison := operand (("==" | "!=" | "<" | ">" | "<=" | ">=" | "in") operand)?
    operand    := "(" expression ")" | "[" [expression ("," expression)*] "]" | call | path
                | string | number | "true" | "false" | "null"
    call       := "exists" "(" expression ")" | "matches" "(" expression "," string ")"
    path       := flow | flow.name | flow.tags | flow.tags.<key> | artifact.name
                | artifact.fingerprint

Expressions are written by users and evaluated for every artifact of every snapshot, so text,
tokens, nesting and numbers are bounded, regular expressions are RE2 (linear time, bounded
memory) compiled once when the policy is parsed, and the operands of and/or/not and the whole
expression must be conditions, which the parser checks. A missing value (a tag the flow lacks,
or the flow of an artifact without provenance) is null: it equals only null, and every ordering
comparison or match against it is false."""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from typing import Any

import re2

MAX_TEXT = 1000
MAX_TOKENS = 300
MAX_DEPTH = 32
MAX_NUMBER_DIGITS = 18
MAX_REGEX_MEMORY = 1 << 20
REMEMBERED_MATCHES = 1 << 15  # outcomes of matches() on subjects up to:
MAX_REMEMBERED_SUBJECT = 256
WRAPPED = re.compile(r"\$\{\{(.*)\}\}", re.S)
_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\n]+)
  | (?P<string>"[^"\\\x00-\x1f]*"|'[^'\\\x00-\x1f]*')
  | (?P<number>[0-9]+(?:\.[0-9]+)?)
  | (?P<op>==|!=|<=|>=|<|>|\(|\)|\[|\]|,)
  | (?P<word>[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*)
""", re.X)
_NUMERIC = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")  # tags holding numbers; never nan or inf
_CONSTANTS = {"true": True, "false": False, "null": None}
_KEYWORDS = {"and", "or", "not", "in"}
_COMPARISONS = {"==", "!=", "<", ">", "<=", ">=", "in"}
Context = dict[str, Any]
Evaluator = Callable[[Context], Any]


class ExpressionError(ValueError):
    """The text is not an expression of the language (the message says why)."""


@dataclasses.dataclass(frozen=True)
class Expression:
    """A parsed condition: `text` as written (inside `${{ }}`), `holds(context)` its value;
    `reads_artifact` when it names artifact.* (else its value depends on the flow alone)."""

    text: str
    holds: Callable[[Context], bool]
    reads_artifact: bool


def unwrap(text: str) -> str:
    """The expression inside `${{ ... }}` (text without the wrapper is taken as it is)."""
    match = WRAPPED.fullmatch(text.strip())
    return (match.group(1) if match else text).strip()


def _tokens(text: str) -> list[tuple[str, str]]:
    tokens, position = [], 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise ExpressionError(f"Unexpected character {text[position]!r} at {position}")
        position = match.end()
        kind = match.lastgroup or ""
        if kind == "space":
            continue
        value = match.group()
        if kind == "word" and value in _KEYWORDS:
            kind = "op"
        tokens.append((kind, value))
        if len(tokens) > MAX_TOKENS:
            raise ExpressionError(f"Longer than {MAX_TOKENS} tokens")
    return tokens


def _path(name: str) -> Evaluator:
    """The value a context path names; unknown paths are refused when parsed."""
    if name in ("flow", "artifact"):
        return lambda context: context.get(name)
    if name in ("flow.name", "flow.tags", "artifact.name", "artifact.fingerprint"):
        root, field = name.split(".")
        return lambda context: (context.get(root) or {}).get(field)
    if name.startswith("flow.tags."):
        key = name[len("flow.tags."):]  # tag keys may themselves contain dots
        return lambda context: ((context.get("flow") or {}).get("tags") or {}).get(key)
    raise ExpressionError(f"Unknown name '{name}': use flow.name, flow.tags.<key>, "
                          "artifact.name or artifact.fingerprint")


def _number(value: Any) -> float | None:
    """A number, or a tag (text) holding one; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return value
    if isinstance(value, str) and len(value) <= MAX_NUMBER_DIGITS + 2 and _NUMERIC.fullmatch(value):
        return float(value)
    return None


def _equal(left: Any, right: Any) -> bool:
    if left is None or right is None:
        return left is right
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    if isinstance(left, int | float) or isinstance(right, int | float):
        a, b = _number(left), _number(right)
        return a is not None and a == b
    return bool(left == right)


def _order(op: str, left: Any, right: Any) -> bool:
    a, b = _number(left), _number(right)
    if a is None or b is None:
        if not (isinstance(left, str) and isinstance(right, str)):
            return False
        a, b = left, right  # type: ignore[assignment]
    return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]  # type: ignore[operator]


def _member(left: Any, right: Any) -> bool:
    if isinstance(right, list):
        return any(_equal(left, item) for item in right)
    if isinstance(right, str) and isinstance(left, str):
        return left in right
    return False


def _compare(op: str, left: Evaluator, right: Evaluator) -> Evaluator:
    if op == "==":
        return lambda c: _equal(left(c), right(c))
    if op == "!=":
        return lambda c: not _equal(left(c), right(c))
    if op == "in":
        return lambda c: _member(left(c), right(c))
    return lambda c: _order(op, left(c), right(c))


@functools.lru_cache(maxsize=REMEMBERED_MATCHES)
def _found(search: Callable[[str], Any], value: str) -> bool:
    """Whether a regular expression finds a match in `value`, remembered: every report of an
    environment judges the same artifact names again by the same exceptions."""
    return search(value) is not None


def _regex(pattern: str) -> Callable[[str], Any]:
    options = re2.Options()
    options.max_mem = MAX_REGEX_MEMORY
    try:
        return re2.compile(pattern, options=options).search
    except re2.error as exc:
        raise ExpressionError(f"Invalid regular expression {pattern!r}: {exc}") from None


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.position = 0
        self.depth = 0
        self.reads_artifact = False

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.position] if self.position < len(self.tokens) else ("end", "")

    def take(self, value: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token[0] == "end" or (value is not None and token != ("op", value)):
            wanted = f"'{value}'" if value else "more"
            found = f"'{token[1]}'" if token[0] != "end" else "the end"
            raise ExpressionError(f"Expected {wanted} but found {found}")
        self.position += 1
        return token

    def nested(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ExpressionError(f"Nested deeper than {MAX_DEPTH}")

    # Each parse method returns (evaluator, is_condition).
    def expression(self) -> tuple[Evaluator, bool]:
        return self.logical("or", self.conjunction)

    def conjunction(self) -> tuple[Evaluator, bool]:
        return self.logical("and", self.negation)

    def logical(self, op: str, operand: Callable[[], tuple[Evaluator, bool]]
                ) -> tuple[Evaluator, bool]:
        first, condition = operand()
        if self.peek() != ("op", op):
            return first, condition
        parts = [self.condition(first, condition, op)]
        while self.peek() == ("op", op):
            self.take()
            parts.append(self.condition(*operand(), op))
        if op == "and":
            return lambda c: all(part(c) for part in parts), True
        return lambda c: any(part(c) for part in parts), True

    @staticmethod
    def condition(evaluator: Evaluator, condition: bool, op: str) -> Evaluator:
        if not condition:
            raise ExpressionError(f"The operands of '{op}' must be conditions "
                                  "(comparisons, exists(), matches(), true or false)")
        return evaluator

    def negation(self) -> tuple[Evaluator, bool]:
        if self.peek() != ("op", "not"):
            return self.comparison()
        self.take()
        self.nested()
        inner = self.condition(*self.negation(), "not")
        self.depth -= 1
        return lambda c: not inner(c), True

    def comparison(self) -> tuple[Evaluator, bool]:
        left, condition = self.operand()
        kind, op = self.peek()
        if kind != "op" or op not in _COMPARISONS:
            return left, condition
        self.take()
        right, _ = self.operand()
        return _compare(op, left, right), True

    def operand(self) -> tuple[Evaluator, bool]:
        kind, value = self.take()
        if kind == "string":
            text = value[1:-1]
            return lambda c: text, False
        if kind == "number":
            if len(value.replace(".", "")) > MAX_NUMBER_DIGITS:
                raise ExpressionError(f"Number {value[:20]}... has more than "
                                      f"{MAX_NUMBER_DIGITS} digits")
            number = float(value) if "." in value else int(value)
            return lambda c: number, False
        if value == "(" or value == "[":
            self.nested()
            result = self.group() if value == "(" else self.items()
            self.depth -= 1
            return result
        if kind == "word" and value in _CONSTANTS:
            constant = _CONSTANTS[value]
            return lambda c: constant, isinstance(constant, bool)
        if kind == "word" and self.peek() == ("op", "("):
            return self.call(value)
        if kind == "word":
            self.reads_artifact = self.reads_artifact or value.startswith("artifact")
            return _path(value), False
        raise ExpressionError(f"Unexpected '{value}'")

    def group(self) -> tuple[Evaluator, bool]:
        inner = self.expression()
        self.take(")")
        return inner

    def items(self) -> tuple[Evaluator, bool]:
        parts: list[Evaluator] = []
        if self.peek() != ("op", "]"):
            parts.append(self.expression()[0])
            while self.peek() == ("op", ","):
                self.take()
                parts.append(self.expression()[0])
        self.take("]")
        return lambda c: [part(c) for part in parts], False

    def call(self, name: str) -> tuple[Evaluator, bool]:
        self.take("(")
        self.nested()
        if name == "exists":
            argument = self.expression()[0]
            self.take(")")
            self.depth -= 1
            return lambda c: argument(c) is not None, True
        if name == "matches":
            subject = self.expression()[0]
            self.take(",")
            kind, pattern = self.take()
            if kind != "string":
                raise ExpressionError("The pattern of matches() must be a string literal")
            search = _regex(pattern[1:-1])
            self.take(")")
            self.depth -= 1

            def matched(c: Context) -> bool:
                value = subject(c)
                if not isinstance(value, str):
                    return False
                if len(value) > MAX_REMEMBERED_SUBJECT:
                    return search(value) is not None
                return _found(search, value)
            return matched, True
        raise ExpressionError(f"Unknown function '{name}': use exists() or matches()")


@functools.lru_cache(maxsize=4096)
def parse(text: str) -> Expression:
    """The expression of `text` (with or without its `${{ }}`), or ExpressionError."""
    if not isinstance(text, str):
        raise ExpressionError("An expression is text")
    if len(text) > MAX_TEXT:
        raise ExpressionError(f"Longer than {MAX_TEXT} characters")
    inner = unwrap(text)
    if not inner:
        raise ExpressionError("Empty expression")
    parser = _Parser(_tokens(inner))
    evaluator, condition = parser.expression()
    if parser.peek()[0] != "end":
        raise ExpressionError(f"Unexpected '{parser.peek()[1]}' after the expression")
    if not condition:
        raise ExpressionError("The expression must be a condition (a comparison, exists(), "
                              "matches(), true or false)")
    return Expression(inner, lambda context: bool(evaluator(context)), parser.reads_artifact)
