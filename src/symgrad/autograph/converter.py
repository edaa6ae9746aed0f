"""AutoGraph-lite: rewrite a Python function's control flow into calls that choose, at
trace time, between Python and ``cond`` / ``while_loop`` (TF's AutoGraph, much smaller).

The function's source is parsed; each function definition in it goes through the passes
of ``autograph_passes`` (calls and boolean operators, jumps into flags, liveness, control
flow into ``autograph_ops`` calls); the result is compiled with the original file name,
line numbers and closure cells, so tracebacks and closures behave as before.  Functions
without source (builtins, lambdas typed at a prompt) run unconverted.  The converted
code reads its operators as ``ag__.*``: this module, which re-exports them.
"""

from __future__ import annotations
import __future__

import ast
import builtins
import functools
import inspect
import logging
import operator
import sys
import textwrap
import types
from collections.abc import Callable, Iterator
from typing import Any

from symgrad.autograph.operators import (  # noqa: F401  (the generated code reads them as ag__.*)
    Undefined,
    UndefinedReturnValue,
    and_,
    eq,
    for_stmt,
    if_exp,
    if_stmt,
    ne,
    not_,
    not_any,
    or_,
    range_,
    retval,
    set_loop_options,
    while_stmt,
)
from symgrad.autograph.passes import ControlFlow, Exprs, Jumps, Notes, live_block, parse, scope
from symgrad.core import hooks

_log = logging.getLogger("symgrad")
_FUTURE_FLAGS = functools.reduce(
    operator.or_, (getattr(__future__, n).compiler_flag for n in __future__.all_feature_names)
)
_SKIP_MODULES = {"symgrad", "numpy", "builtins", *sys.stdlib_module_names}


class AutoGraphError(NotImplementedError):
    """A construct AutoGraph-lite cannot convert; the message names the line."""


# --------------------------------------------------------------------------------------
# Entry points: convert a function, and the call wrapper converted code uses


def do_not_convert(func: Callable[..., Any] | None = None) -> Any:
    """Mark ``func`` to run as written inside converted code (a decorator, with or
    without the call)."""
    if func is None:
        return do_not_convert
    func.__ag_do_not_convert__ = True  # type: ignore[attr-defined]
    return func


def to_graph(
    entity: Any, recursive: bool = True, experimental_optional_features: Any = None
) -> Any:
    """``entity`` with its control flow converted (``tf.autograph.to_graph``); functions it
    calls are converted when they run (``recursive`` is always on)."""
    return convert(entity, strict=True)


def call(f: Any) -> Any:
    """What a call ``f(...)`` in converted code calls: ``f`` converted when it is a user
    function, ``range`` that accepts tensors, else ``f`` itself."""
    if f is builtins.range:
        return range_
    if isinstance(f, types.FunctionType | types.MethodType | functools.partial):
        return convert(f, strict=False)
    return f


def convert(f: Any, strict: bool) -> Any:
    """``f`` converted (bound methods and partials keep their binding).  Without
    ``strict`` a construct that cannot be converted leaves ``f`` as it is (TF's fallback
    for functions it calls); with it, that raises."""
    if isinstance(f, types.MethodType):
        inner = convert(f.__func__, strict)
        return f if inner is f.__func__ else types.MethodType(inner, f.__self__)
    if isinstance(f, functools.partial):
        inner = convert(f.func, strict)
        return f if inner is f.func else functools.partial(inner, *f.args, **f.keywords)
    if not isinstance(f, types.FunctionType) or not _wanted(f):
        return f
    code = _CACHE.get(f.__code__)
    if code is None:
        code = _CACHE[f.__code__] = _compile(f)
        if isinstance(code, AutoGraphError) and not strict:
            _log.warning("AutoGraph could not transform %s and will run it as-is: %s", f, code)
    if isinstance(code, AutoGraphError):
        if strict:
            raise code
        return f
    return f if code is AS_WRITTEN else _rebuild(f, code)


# Original code -> converted code, AS_WRITTEN, or the error.  Keyed by code object, which
# every function a closure factory makes shares: so the cache never holds a function.
_CACHE: dict[types.CodeType, Any] = {}
AS_WRITTEN = object()  # no source to convert (made by exec, say): the function runs as is
_CONVERTED: set[types.CodeType] = set()  # every code object the converter produced


def _wanted(f: types.FunctionType) -> bool:
    if getattr(f, "__ag_do_not_convert__", False) or f.__code__ in _CONVERTED:
        return False
    if f.__name__ == "<lambda>" or any(
        d in f.__code__.co_filename for d in ("site-packages", "dist-packages")
    ):
        return False
    home = f.__globals__.get("__name__", "")  # where it was defined (wraps copies __module__)
    return str(home).partition(".")[0] not in _SKIP_MODULES


def _rebuild(f: types.FunctionType, code: types.CodeType) -> types.FunctionType:
    """A function of the converted code with ``f``'s globals, defaults and closure cells."""
    cells = dict(zip(f.__code__.co_freevars, f.__closure__ or (), strict=True))
    cells["ag__"] = types.CellType(sys.modules[__name__])
    # A recursive function names itself: compiled inside the factory, where its def binds
    # the name, that is a closure cell, which must hold the converted function.
    own = None
    if code.co_name in code.co_freevars and code.co_name not in cells:
        cells[code.co_name] = own = types.CellType()
    closure = tuple(cells[n] for n in code.co_freevars)
    g = types.FunctionType(code, f.__globals__, f.__name__, f.__defaults__, closure)
    if own is not None:
        own.cell_contents = g
    g.__kwdefaults__ = f.__kwdefaults__
    g.__dict__.update(f.__dict__)
    g.__qualname__, g.__doc__, g.__module__ = f.__qualname__, f.__doc__, f.__module__
    return g


def _compile(f: types.FunctionType) -> Any:
    """The converted code object of ``f``, AS_WRITTEN when it has no source to convert,
    or the AutoGraphError saying why it cannot be converted."""
    try:
        lines, first = inspect.getsourcelines(f.__code__)  # not a __wrapped__ function's
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return AS_WRITTEN
    fdef = tree.body[0] if tree.body else None
    if not isinstance(fdef, ast.FunctionDef) or fdef.name != f.__code__.co_name:
        return AS_WRITTEN  # a lambda, or source that is not this function's def
    ast.increment_lineno(tree, first - 1)
    src = Source(f.__code__.co_filename, first, lines)
    try:
        _check_supported(fdef, src)
        _convert_def(fdef, src, top=True)
    except AutoGraphError as e:
        return e
    # Compiled inside a function whose locals are the free variables, so the converted
    # function reads them as closure cells (given the original cells by _rebuild).
    factory = parse(f"def __ag_factory({', '.join(['ag__', *f.__code__.co_freevars])}):\n pass")
    factory[0].body = [fdef, ast.Return(ast.Name(fdef.name, ast.Load()))]  # type: ignore[attr-defined]
    ast.copy_location(factory[0], fdef)
    module = ast.fix_missing_locations(ast.Module(factory, type_ignores=[]))
    flags = f.__code__.co_flags & _FUTURE_FLAGS  # e.g. `from __future__ import annotations`
    try:
        code = compile(module, f.__code__.co_filename, "exec", flags=flags, dont_inherit=True)
    except SyntaxError as e:  # e.g. a break inside a match statement inside a loop
        where = src.where(fdef, fdef.name)
        return AutoGraphError(f"AutoGraph could not convert this function ({e.msg}); {where}")
    made = [c for c in _codes(code) if c.co_name == fdef.name and c.co_firstlineno]
    _CONVERTED.update(_codes(code))
    return made[0]


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield c
            yield from _codes(c)


class Source:
    """Where the function's code is, for error messages that name the line."""

    def __init__(self, filename: str, first: int, lines: list[str]) -> None:
        self.filename, self.first, self.lines = filename, first, lines

    def where(self, node: ast.AST, func: str) -> str:
        line = getattr(node, "lineno", self.first)
        text = (
            self.lines[line - self.first].strip()
            if 0 <= line - self.first < len(self.lines)
            else ""
        )
        return f'File "{self.filename}", line {line}, in {func}: {text}'


def _is_generator(fdef: ast.FunctionDef) -> bool:
    return any(isinstance(n, ast.Yield | ast.YieldFrom) for n in scope(fdef.body))


def _convert_def(fdef: ast.FunctionDef, src: Source, top: bool = False) -> None:
    """Convert ``fdef`` in place: nested definitions first, then the four passes."""
    for node in scope(fdef.body):
        if isinstance(node, ast.FunctionDef) and not _is_generator(node):
            _convert_def(node, src)
    fdef.decorator_list = [] if top else fdef.decorator_list
    if top:  # annotations may name things the fresh compile cannot see
        for a in [*fdef.args.posonlyargs, *fdef.args.args, *fdef.args.kwonlyargs]:
            a.annotation = None
        fdef.returns = None
    params = [*fdef.args.posonlyargs, *fdef.args.args]
    exprs = Exprs(params[0].arg if params else None)
    fdef.body = [exprs.visit(s) for s in fdef.body]
    notes = Notes()
    Jumps(notes).function(fdef)
    globals_ = {n for s in scope(fdef.body) if isinstance(s, ast.Global) for n in s.names}
    live_block(fdef.body, set(), notes)
    fdef.body = ControlFlow(src, fdef.name, globals_, notes).block(fdef.body)


def _check_supported(fdef: ast.FunctionDef, src: Source) -> None:
    for node in scope(fdef.body):
        if isinstance(node, ast.Yield | ast.YieldFrom):
            raise AutoGraphError(
                f"generators are not supported by AutoGraph; {src.where(node, fdef.name)}\n"
                "  Return tensors instead (tf.stack the values, or write them to a "
                "tf.TensorArray), or decorate the function with "
                "@tf.autograph.experimental.do_not_convert."
            )


hooks.provide("autograph", to_graph)
