"""The passes of AutoGraph-lite's converter (see ``autograph/converter.py``), per function:

1. expressions: every call ``f(x)`` becomes ``ag__.call(f)(x)`` (so user functions it
   calls are converted too, and ``range`` over a tensor becomes ``tf.range``); ``and``,
   ``or``, ``not``, ``==``, ``!=`` and ``a if c else b`` become operators that accept
   tensors (``==`` on a symbolic tensor compares values, as in TF 2, not identity);
2. jumps: ``break``, ``continue`` and a ``return`` inside a compound statement become
   flag variables, with the statements after them guarded by ``if not flag`` (and a loop's
   condition extended by its flags), so every statement has one way out;
3. liveness: which variables each ``if`` / loop must carry out (those read later) and
   which a loop carries between iterations (those read before they are written);
4. control flow: each ``if`` / ``while`` / ``for`` becomes local functions for its parts,
   ``nonlocal`` over the variables it assigns, and one call to ``autograph_ops``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from symgrad.autograph.converter import Source

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_LOOPS = (ast.While, ast.For)


@dataclass
class Notes:
    """What the passes learn about each ``if`` / loop statement, keyed by its node."""

    stops: dict[ast.stmt, list[str]] = field(default_factory=dict)  # a loop's exit flags
    live: dict[ast.stmt, set[str]] = field(default_factory=dict)  # names read after it
    carried: dict[ast.stmt, set[str]] = field(default_factory=dict)  # read before written


def _args(names: list[str]) -> ast.arguments:
    return ast.arguments(
        posonlyargs=[],
        args=[ast.arg(n) for n in names],
        kwonlyargs=[],
        kw_defaults=[],
        defaults=[],
    )


# --------------------------------------------------------------------------------------
# Small AST helpers


def scope(stmts: list[Any], skip: tuple[type, ...] = _SCOPES) -> Iterator[ast.AST]:
    """Nodes of this function's scope: nested definitions are yielded, not entered."""
    stack = list(reversed(stmts))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, skip):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _unplaced(tree: Any) -> Any:
    """``tree`` without source positions: generated code takes those of the user's line."""
    for node in ast.walk(tree):
        for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            if hasattr(node, attr):
                delattr(node, attr)
    return tree


def parse(code: str) -> list[ast.stmt]:
    return _unplaced(ast.parse(code)).body  # type: ignore[no-any-return]


def _expr(code: str) -> ast.expr:
    return _unplaced(ast.parse(code, mode="eval")).body  # type: ignore[no-any-return]


def _lambda(body: ast.expr) -> ast.Lambda:
    return ast.Lambda(_args([]), body)


def _ag(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(_expr(f"ag__.{name}"), list(args), [])


def _names_in(target: ast.AST) -> set[str]:
    """The names an assignment target binds (``a, (b, *c)``; not ``a[i]`` or ``a.b``)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Starred):
        return _names_in(target.value)
    if isinstance(target, ast.Tuple | ast.List):
        return set().union(*map(_names_in, target.elts))
    return set()


def _loads(node: ast.AST | list[Any]) -> set[str]:
    """Every name read, inside nested functions too (a closure may run at any time)."""
    out = set()
    for root in node if isinstance(node, list) else [node]:
        for n in ast.walk(root):
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store):
                out.add(n.id)
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                out.add(n.target.id)
    return out


def _modified(stmts: list[Any]) -> set[str]:
    """Names these statements bind in the function's own scope."""
    out = set()
    for n in scope(stmts, _SCOPES + _COMPS):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
        elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(n.name)
        elif isinstance(n, ast.Import | ast.ImportFrom):
            out |= {(a.asname or a.name).partition(".")[0] for a in n.names}
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
    return out


def _blocks(s: ast.stmt) -> list[tuple[Any, str]]:
    """The statement lists inside a compound statement, as (node, field) pairs (the
    bodies of ``try`` handlers and ``match`` cases included)."""
    owners = [s, *getattr(s, "handlers", []), *getattr(s, "cases", [])]
    fields = ("body", "orelse", "finalbody")
    return [(o, f) for o in owners for f in fields if isinstance(getattr(o, f, None), list)]


def _kills(s: ast.stmt) -> set[str]:
    """Names a simple statement certainly assigns."""
    if isinstance(s, ast.Assign):
        return set().union(*map(_names_in, s.targets))
    if isinstance(s, ast.AnnAssign) and s.value is not None:
        return _names_in(s.target)
    if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {s.name}
    return set()


# --------------------------------------------------------------------------------------
# Pass 1: calls, and/or/not, conditional expressions


class Exprs(ast.NodeTransformer):
    def __init__(self, first_param: str | None) -> None:
        self.first_param = first_param  # the `self` a zero-argument super() stands for

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        return node  # converted on its own

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Call(self, node: ast.Call) -> Any:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "super":
            if not node.args and self.first_param:  # it may move into a local function
                node.args = [
                    ast.Name("__class__", ast.Load()),
                    ast.Name(self.first_param, ast.Load()),
                ]
            return node
        node.func = _ag("call", node.func)
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> Any:
        self.generic_visit(node)
        op = "and_" if isinstance(node.op, ast.And) else "or_"
        out = node.values[-1]
        for v in reversed(node.values[:-1]):
            out = _ag(op, _lambda(v), _lambda(out))
        return out

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        self.generic_visit(node)
        return _ag("not_", node.operand) if isinstance(node.op, ast.Not) else node

    def visit_Compare(self, node: ast.Compare) -> Any:
        self.generic_visit(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq | ast.NotEq):
            name = "eq" if isinstance(node.ops[0], ast.Eq) else "ne"
            return _ag(name, node.left, node.comparators[0])
        return node

    def visit_IfExp(self, node: ast.IfExp) -> Any:
        self.generic_visit(node)
        return _ag("if_exp", node.test, _lambda(node.body), _lambda(node.orelse))


# --------------------------------------------------------------------------------------
# Pass 2: break / continue / return into flags


def _jumps(stmts: list[Any]) -> set[str]:
    """Which of break / continue / return these statements may run: a break or continue
    counts unless a loop inside them owns it; a return counts anywhere."""
    out = set()
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Return | ast.Break | ast.Continue):
            out.add(type(n).__name__.lower())
        elif isinstance(n, _LOOPS):
            if any(isinstance(m, ast.Return) for m in scope(n.body)):
                out.add("return")
            stack.extend(n.orelse)  # an else clause's break is the outer loop's
        elif not isinstance(n, _SCOPES):
            stack.extend(ast.iter_child_nodes(n))
    return out


def _always(stmts: list[Any]) -> bool:
    """Whether these statements certainly end with a break, continue or return."""
    return any(
        isinstance(s, ast.Return | ast.Break | ast.Continue)
        or (isinstance(s, ast.If) and _always(s.body) and _always(s.orelse))
        for s in stmts
    )


def _assign(name: str, value: ast.expr) -> ast.Assign:
    return ast.Assign([ast.Name(name, ast.Store())], value)


def _not_any(flags: list[str]) -> ast.Call:
    return _ag("not_any", *(ast.Name(f, ast.Load()) for f in flags))


class Jumps:
    """TF's rewrite of jumps into flags: the statements after one that may jump run under
    ``if not flag``, and a loop also stops when its flags are set.  An ``if`` whose branch
    certainly jumps takes the rest of the block into its other branch instead (so a
    tensor ``if`` that returns on one side gets the return value of the other)."""

    def __init__(self, notes: Notes) -> None:
        self.notes = notes
        self.count = 0
        self.ret = False

    def function(self, fdef: ast.FunctionDef) -> None:
        self.ret = any(
            isinstance(n, ast.Return)
            for s in fdef.body
            if not isinstance(s, ast.Return)
            for n in scope([s])
        )
        body = self.block(fdef.body, None)
        if self.ret:
            head = parse("do_return__ = False\nretval__ = ag__.UndefinedReturnValue()")
            body = head + body + [ast.Return(_ag("retval", ast.Name("retval__", ast.Load())))]
        fdef.body = body

    def block(self, stmts: list[Any], loop: dict[str, Any] | None) -> list[Any]:
        out: list[Any] = []
        for i, s in enumerate(stmts):
            rest = stmts[i + 1 :]
            if isinstance(s, ast.Break | ast.Continue) and loop is not None:
                kind = type(s).__name__.lower()
                loop["used"].add(kind)
                return [*out, ast.copy_location(_assign(loop[kind], ast.Constant(True)), s)]
            if isinstance(s, ast.Return) and self.ret:
                value = s.value or ast.Constant(None)
                done = _assign("do_return__", ast.Constant(True))
                return [*out, ast.copy_location(done, s), _assign("retval__", value)]
            flags = self._flags(s, loop)
            if isinstance(s, ast.If) and (_always(s.body) or _always(s.orelse)):
                s.body += [] if _always(s.body) else rest
                s.orelse += [] if _always(s.orelse) else rest
                return [*out, *self.stmt(s, loop)]
            out += self.stmt(s, loop)
            if flags and rest:
                guard = ast.If(_not_any(flags), self.block(rest, loop), [])
                return [*out, ast.copy_location(guard, rest[0])]
        return out

    def _flags(self, s: ast.stmt, loop: dict[str, Any] | None) -> list[str]:
        kinds = _jumps([s])
        names = [loop[k] for k in ("break", "continue") if loop and k in kinds]
        return names + (["do_return__"] if self.ret and "return" in kinds else [])

    def stmt(self, s: ast.stmt, loop: dict[str, Any] | None) -> list[Any]:
        if isinstance(s, _LOOPS):
            return self.loop(s, loop)
        if isinstance(s, ast.If):
            s.body, s.orelse = self.block(s.body, loop), self.block(s.orelse, loop)
        elif not isinstance(s, _SCOPES):  # with, try, match
            for owner, name in _blocks(s):
                setattr(owner, name, self.block(getattr(owner, name), loop))
        return [s]

    def loop(self, s: ast.While | ast.For, outer: dict[str, Any] | None) -> list[Any]:
        self.count += 1
        ctx: dict[str, Any] = {
            "break": f"break__{self.count}",
            "continue": f"continue__{self.count}",
            "used": set(),
        }
        returns = self.ret and any(isinstance(n, ast.Return) for n in scope(s.body))
        s.body = self.block(s.body, ctx) or [ast.Pass()]
        used = ctx["used"]
        if "continue" in used:
            s.body.insert(0, _assign(ctx["continue"], ast.Constant(False)))
        stops = [ctx["break"]] if "break" in used else []
        stops += ["do_return__"] if returns else []
        pre = [_assign(ctx["break"], ast.Constant(False))] if "break" in used else []
        post = self.block(s.orelse, outer)
        if post and stops:
            post = [ast.If(_not_any(stops), post, [])]
        s.orelse = []
        if stops and isinstance(s, ast.While):
            s.test = _ag("and_", _lambda(_not_any(stops)), _lambda(s.test))
        self.notes.stops[s] = stops
        return [*pre, s, *post]


# --------------------------------------------------------------------------------------
# Pass 3: liveness (which variables a statement must carry)


def live_block(stmts: list[Any], live_out: set[str], notes: Notes) -> set[str]:
    """The names live before ``stmts`` given those live after; on the way it notes for
    each ``if`` / loop the names live after it and, for loops, the names read before they
    are written in the body (a superset: reads inside nested functions count anywhere)."""
    live = set(live_out)
    for s in reversed(stmts):
        live = _live_stmt(s, live, notes)
    return live


def _live_stmt(s: ast.stmt, out: set[str], notes: Notes) -> set[str]:
    if isinstance(s, ast.If):
        notes.live[s] = out
        return _loads(s.test) | live_block(s.body, out, notes) | live_block(s.orelse, out, notes)
    if isinstance(s, _LOOPS):
        notes.live[s] = out
        # a for loop's break / return flags are read by its extra test, before each pass
        head = _loads(s.test) if isinstance(s, ast.While) else set(notes.stops[s])
        target = _names_in(s.target) if isinstance(s, ast.For) else set()
        body_in: set[str] = set()
        while True:  # to a fixed point: the body's end flows back to its start
            new = (live_block(s.body, out | head | body_in, notes) - target) | head
            if new == body_in:
                break
            body_in = new
        notes.carried[s] = body_in
        start = _loads(s.iter) if isinstance(s, ast.For) else set()
        return start | body_in | out
    if isinstance(s, ast.With | ast.AsyncWith):  # ``as`` names are set before the body
        bound = {n for i in s.items if i.optional_vars for n in _names_in(i.optional_vars)}
        return _loads([i.context_expr for i in s.items]) | (live_block(s.body, out, notes) - bound)
    blocks = _blocks(s)
    if blocks and not isinstance(s, _SCOPES):  # try, match: everything stays live
        wide = out | _loads(s)
        for owner, name in blocks:
            live_block(getattr(owner, name), wide, notes)
        return wide
    return (out - _kills(s)) | _loads(s)


# --------------------------------------------------------------------------------------
# Pass 4: if / while / for into local functions and one operator call


class ControlFlow:
    def __init__(self, src: Source, func: str, globals_: set[str], notes: Notes) -> None:
        self.src, self.func, self.globals, self.notes = src, func, globals_, notes
        self.count = 0

    def block(self, stmts: list[Any]) -> list[Any]:
        return [new for s in stmts for new in self.stmt(s)]

    def stmt(self, s: ast.stmt) -> list[Any]:
        if isinstance(s, ast.If):
            return self.if_(s)
        if isinstance(s, _LOOPS):
            return self.loop(s)
        if not isinstance(s, _SCOPES):
            for owner, name in _blocks(s):
                setattr(owner, name, self.block(getattr(owner, name)))
        return [s]

    def if_(self, s: ast.If) -> list[Any]:
        modified = _modified(s.body + s.orelse) - self.globals
        live = sorted(modified & self.notes.live[s])
        names = live + sorted(modified - set(live))
        n = self._next()
        defs = [
            self._fn(f"if_body__{n}", [], self.block(s.body), modified),
            self._fn(f"else_body__{n}", [], self.block(s.orelse), modified),
            *self._state(n, names),
        ]
        call = _ag(
            "if_stmt",
            s.test,
            *self._refs(f"if_body__{n}", f"else_body__{n}", f"get_state__{n}", f"set_state__{n}"),
            _strs(names),
            ast.Constant(len(live)),
            ast.Constant(self.src.where(s, self.func)),
        )
        return self._located(s, [*_pre_init(names), *defs, ast.Expr(call)])

    def loop(self, s: ast.While | ast.For) -> list[Any]:
        modified = _modified(s.body) - self.globals
        if isinstance(s, ast.For):
            modified |= _names_in(s.target) - self.globals
        carried = sorted(modified & (self.notes.carried[s] | self.notes.live[s]))
        n = self._next()
        opts, stmts = _loop_options(s.body)
        body = self.block(stmts)
        where = ast.Constant(self.src.where(s, self.func))
        state = self._refs(f"get_state__{n}", f"set_state__{n}")
        if isinstance(s, ast.While):
            defs = [self._fn(f"loop_test__{n}", [], [ast.Return(s.test)], set())]
            defs.append(self._fn(f"loop_body__{n}", [], body, modified))
            call = _ag("while_stmt", *self._refs(f"loop_test__{n}", f"loop_body__{n}"), *state)
        else:
            bind = ast.Assign([s.target], ast.Name("itr__", ast.Load()))
            defs = [self._fn(f"loop_body__{n}", ["itr__"], [bind, *body], modified)]
            stops = self.notes.stops[s]
            extra: ast.expr = ast.Constant(None)
            if stops:
                defs.append(self._fn(f"extra_test__{n}", [], [ast.Return(_not_any(stops))], set()))
                extra = ast.Name(f"extra_test__{n}", ast.Load())
            call = _ag("for_stmt", s.iter, extra, ast.Name(f"loop_body__{n}", ast.Load()), *state)
        call.args += [_strs(carried), where, opts]
        pre = _pre_init(sorted(modified))
        return self._located(s, [*pre, *defs, *self._state(n, carried), ast.Expr(call)])

    # -- pieces
    def _next(self) -> int:
        self.count += 1
        return self.count

    def _fn(self, name: str, params: list[str], body: list[Any], names: set[str]) -> Any:
        """``def name(params):`` over ``body``, assigning ``names`` of the enclosing scope."""
        fdef: Any = parse(f"def {name}({', '.join(params)}):\n    pass")[0]
        decl: list[Any] = [ast.Nonlocal(sorted(names))] if names else []
        assigned = _modified(body) & self.globals
        decl += [ast.Global(sorted(assigned))] if assigned else []
        fdef.body = decl + (body or [ast.Pass()])
        return fdef

    def _state(self, n: int, names: list[str]) -> list[Any]:
        tup = ", ".join(names) + ("," if names else "")
        code = f"def get_state__{n}():\n    return ({tup})\n"
        code += f"def set_state__{n}(vals__):\n"
        code += (
            f"    nonlocal {', '.join(names)}\n    ({tup}) = vals__\n" if names else "    pass\n"
        )
        return parse(code)

    @staticmethod
    def _refs(*names: str) -> list[ast.expr]:
        return [ast.Name(n, ast.Load()) for n in names]

    @staticmethod
    def _located(s: ast.stmt, stmts: list[Any]) -> list[Any]:
        for new in stmts:
            for node in ast.walk(new):
                if "lineno" in node._attributes and not hasattr(node, "lineno"):
                    ast.copy_location(node, s)
        return stmts


def _loop_options(body: list[Any]) -> tuple[ast.expr, list[Any]]:
    """The options of a ``set_loop_options(...)`` statement in a loop body, as a dict
    expression (its ``shape_invariants`` keyed by variable name), and the body without it."""
    for i, st in enumerate(body):
        call = st.value if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) else None
        func = call.func if call else None
        if isinstance(func, ast.Call) and func.args:  # ag__.call(f)(...) after pass 1
            func = func.args[0]
        name = getattr(func, "attr", None) or getattr(func, "id", None)
        if call is None or name != "set_loop_options":
            continue
        keys: list[ast.expr | None] = []
        values: list[ast.expr] = []
        for kw in call.keywords:
            value = kw.value
            if kw.arg == "shape_invariants" and isinstance(value, ast.List | ast.Tuple):
                pairs = [p for p in value.elts if isinstance(p, ast.Tuple) and len(p.elts) == 2]
                named: list[ast.expr] = [
                    ast.Tuple([ast.Constant(_name_of(p.elts[0])), p.elts[1]], ast.Load())
                    for p in pairs
                ]
                value = ast.List(named, ast.Load())
            keys.append(ast.Constant(kw.arg))
            values.append(value)
        return ast.Dict(keys, values), body[:i] + body[i + 1 :]
    return ast.Constant(None), body


def _name_of(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else ast.unparse(node)


def _strs(names: list[str]) -> ast.Tuple:
    return ast.Tuple([ast.Constant(n) for n in names], ast.Load())


def _pre_init(names: list[str]) -> list[Any]:
    """Give each name a binding here (``Undefined`` if it has no value yet), so that the
    local functions may declare it ``nonlocal``."""
    code = "".join(
        f"try:\n    {n}\nexcept NameError:\n    {n} = ag__.Undefined({n!r})\n" for n in names
    )
    return parse(code)
