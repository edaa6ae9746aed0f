"""``tf.compat.v1.flags`` (also ``tf.compat.v1.app.flags``): the part of absl's flags API
that TF programs use, in pure Python (symgrad does not depend on absl).

TF's module is absl's ``flags`` with one change kept here: reading a flag of ``FLAGS``
before they were parsed parses ``sys.argv`` first (absl raises
``UnparsedFlagAccessError``; the holder a ``DEFINE_*`` returns still does).  Parsing is
absl's: ``--name=value``, ``--name value``, ``-name`` as ``--name``, ``--flag`` and
``--noflag`` for booleans, ``--`` ends the flags, other arguments are kept in order (GNU
style), ``--undefok=a,b`` ignores those unknown flags, an unknown flag raises
``UnrecognizedFlagError`` with absl's text and suggestions, a bad value
``IllegalFlagValueError`` ("flag --steps=abc: invalid literal ..."), and validators
(``mark_flag_as_required``, bounds) run after parsing and on assignment.  The flags absl's
logging and app modules define (``--verbosity``/``-v``, ``--logtostderr``,
``--only_check_args`` ...) are defined too; ``--flagfile`` and absl's other modules'
flags are not.

>>> from symgrad.compat.tf1_app import flags as flags
>>> fv = flags.FlagValues()
>>> _ = flags.DEFINE_integer("steps", 10, "Steps.", flag_values=fv)
>>> _ = flags.DEFINE_boolean("fast", False, "Fast.", flag_values=fv)
>>> fv(["prog", "--steps", "3", "--fast", "data.txt"])
['prog', 'data.txt']
>>> fv.steps, fv.fast
(3, True)
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

from symgrad.compat.tf1_app import absl_logging as _absl_logging
from symgrad.compat.tf1_app.flag import (
    DuplicateFlagError,
    Error,
    Flag,
    IllegalFlagValueError,
    UnparsedFlagAccessError,
    UnrecognizedFlagError,
    ValidationError,
    _BoolParser,
    _EnumParser,
    _FloatParser,
    _ListParser,
    _MultiFlag,
    _NumberParser,
    _Parser,
    _Validator,
    _VerbosityFlag,
)
from symgrad.compat.tf1_app.flagvalues import FlagValues, _FlagValuesWrapper
from symgrad.compat.tf1_app.help_text import text_wrap

__all__ = [
    "DEFINE",
    "FLAGS",
    "DEFINE_bool",
    "DEFINE_boolean",
    "DEFINE_enum",
    "DEFINE_float",
    "DEFINE_integer",
    "DEFINE_list",
    "DEFINE_multi_float",
    "DEFINE_multi_integer",
    "DEFINE_multi_string",
    "DEFINE_string",
    "DuplicateFlagError",
    "Error",
    "FlagHolder",
    "FlagValues",
    "IllegalFlagValueError",
    "UnparsedFlagAccessError",
    "UnrecognizedFlagError",
    "ValidationError",
    "mark_flag_as_required",
    "mark_flags_as_required",
    "register_validator",
    "text_wrap",
    "validator",
]


_FV = FlagValues()
FLAGS: Any = _FlagValuesWrapper(_FV)


def _values(flag_values: Any) -> FlagValues:
    """The registry behind ``flag_values`` (TF's FLAGS is a wrapper of absl's)."""
    if isinstance(flag_values, _FlagValuesWrapper):
        return flag_values.__dict__["__wrapped"]  # type: ignore[no-any-return]
    return flag_values  # type: ignore[no-any-return]


def _calling_module() -> str:
    """The module that called a DEFINE (the program's path for ``__main__``), as absl."""
    f = sys._getframe(1)
    while f.f_globals.get("__name__") == __name__:
        assert f.f_back is not None
        f = f.f_back
    name = str(f.f_globals.get("__name__", "<unknown>"))
    return sys.argv[0] if name == "__main__" else name


class FlagHolder:
    """What a ``DEFINE_*`` returns: ``.value`` reads the flag (raising before parsing,
    as absl's: TF's implicit parse is ``FLAGS``'s only)."""

    def __init__(self, flag_values: Any, flag: Flag, ensure_non_none_value: bool = False):
        self._flagvalues, self._name = _values(flag_values), flag.name
        self._ensure_non_none_value = ensure_non_none_value

    @property
    def name(self) -> str:
        return self._name

    @property
    def value(self) -> Any:
        val = getattr(self._flagvalues, self._name)
        if self._ensure_non_none_value and val is None:
            raise IllegalFlagValueError(f"Unexpected None value for flag {self._name}")
        return val

    @property
    def default(self) -> Any:
        return self._flagvalues[self._name].default

    @property
    def present(self) -> bool:
        return bool(self._flagvalues[self._name].present)


def _define(flag: Flag, flag_values: Any, module_name: str | None, required: bool) -> FlagHolder:
    fv = _values(flag_values)
    fv.register(flag, module_name or _calling_module())
    bounds = flag.parser
    if isinstance(bounds, _NumberParser) and (
        bounds.lower_bound is not None or bounds.upper_bound is not None
    ):
        register_validator(flag.name, _bounds_checker(bounds), flag_values=fv)
    if required:
        mark_flag_as_required(flag.name, fv)
    return FlagHolder(fv, flag)


def _bounds_checker(parser: _NumberParser) -> Any:
    def checker(value: Any) -> bool:
        if value is not None and parser.outside(value):
            raise ValidationError(f"{value} is not {parser.syntactic_help}")
        return True

    return checker


def DEFINE(
    parser: Any,
    name: str,
    default: Any,
    help: str | None,
    flag_values: Any = _FV,
    serializer: Any = None,
    module_name: str | None = None,
    required: bool = False,
    **args: Any,
) -> FlagHolder:
    """A flag parsed by ``parser`` (an object with ``parse(text)``)."""
    serialize = serializer.serialize if serializer is not None else str
    flag = Flag(parser, name, default, help, args.get("short_name"), serialize=serialize)
    return _define(flag, flag_values, module_name, required)


def DEFINE_string(
    name: str,
    default: Any,
    help: str | None,
    flag_values: Any = _FV,
    required: Any = False,
    **args: Any,
) -> FlagHolder:
    flag = Flag(_Parser(), name, default, help, args.get("short_name"))
    return _define(flag, flag_values, None, required)


def DEFINE_boolean(
    name: str,
    default: Any,
    help: str | None,
    flag_values: Any = _FV,
    module_name: str | None = None,
    required: Any = False,
    **args: Any,
) -> FlagHolder:
    """A boolean flag: ``--name`` sets it, ``--noname`` clears it, ``--name=false`` too."""
    flag = Flag(_BoolParser(), name, default, help, args.get("short_name"), boolean=True)
    return _define(flag, flag_values, module_name, required)


DEFINE_bool = DEFINE_boolean


def DEFINE_integer(
    name: str,
    default: Any,
    help: str | None,
    lower_bound: Any = None,
    upper_bound: Any = None,
    flag_values: Any = _FV,
    required: Any = False,
    **args: Any,
) -> FlagHolder:
    parser = _NumberParser(lower_bound, upper_bound)
    flag = Flag(parser, name, default, help, args.get("short_name"))
    return _define(flag, flag_values, None, required)


def DEFINE_float(
    name: str,
    default: Any,
    help: str | None,
    lower_bound: Any = None,
    upper_bound: Any = None,
    flag_values: Any = _FV,
    required: Any = False,
    **args: Any,
) -> FlagHolder:
    parser = _FloatParser(lower_bound, upper_bound)
    flag = Flag(parser, name, default, help, args.get("short_name"))
    return _define(flag, flag_values, None, required)


def DEFINE_enum(
    name: str,
    default: Any,
    enum_values: Any,
    help: str | None,
    flag_values: Any = _FV,
    module_name: str | None = None,
    required: Any = False,
    **args: Any,
) -> FlagHolder:
    """A string flag whose value must be one of ``enum_values`` (help: "<a|b>: help")."""
    parser = _EnumParser(enum_values, args.get("case_sensitive", True))
    text = f"<{'|'.join(parser.enum_values)}>: {help}"
    flag = Flag(parser, name, default, text, args.get("short_name"))
    return _define(flag, flag_values, module_name, required)


def DEFINE_list(
    name: str,
    default: Any,
    help: str | None,
    flag_values: Any = _FV,
    required: Any = False,
    **args: Any,
) -> FlagHolder:
    """A comma-separated list of strings (parsed as CSV, each item stripped)."""
    flag = Flag(_ListParser(), name, default, help, args.get("short_name"), serialize=",".join)
    return _define(flag, flag_values, None, required)


def _multi(
    parser: _Parser, name: str, default: Any, help: Any, fv: Any, req: Any, args: Any
) -> FlagHolder:
    flag = _MultiFlag(parser, name, default, help, args.get("short_name"))
    return _define(flag, fv, None, req)


def DEFINE_multi_string(
    name: str,
    default: Any,
    help: str | None,
    flag_values: Any = _FV,
    required: Any = False,
    **args: Any,
) -> FlagHolder:
    """A flag given any number of times (``--inc a --inc b``: ``['a', 'b']``)."""
    return _multi(_Parser(), name, default, help, flag_values, required, args)


def DEFINE_multi_integer(
    name: str,
    default: Any,
    help: str | None,
    lower_bound: Any = None,
    upper_bound: Any = None,
    flag_values: Any = _FV,
    required: Any = False,
    **args: Any,
) -> FlagHolder:
    parser = _NumberParser(lower_bound, upper_bound)
    return _multi(parser, name, default, help, flag_values, required, args)


def DEFINE_multi_float(
    name: str,
    default: Any,
    help: str | None,
    lower_bound: Any = None,
    upper_bound: Any = None,
    flag_values: Any = _FV,
    required: Any = False,
    **args: Any,
) -> FlagHolder:
    parser = _FloatParser(lower_bound, upper_bound)
    return _multi(parser, name, default, help, flag_values, required, args)


def register_validator(
    flag_name: Any, checker: Any, message: str = "Flag validation failed", flag_values: Any = _FV
) -> None:
    """``checker(value)`` must be true after parsing and after each assignment."""
    _add_validator([_name(flag_name)], checker, message, flag_values, multi=False)


def validator(
    flag_name: Any, message: str = "Flag validation failed", flag_values: Any = _FV
) -> Any:
    """``register_validator`` as a decorator."""

    def decorate(function: Any) -> Any:
        register_validator(flag_name, function, message=message, flag_values=flag_values)
        return function

    return decorate


def _add_validator(names: list[str], checker: Any, message: str, fv: Any, multi: bool) -> None:
    v = _Validator(names, checker, message, multi)
    for n in names:
        _values(fv)[n].validators.append(v)


def _name(flag: Any) -> str:
    return flag.name if isinstance(flag, FlagHolder) else str(flag)


def mark_flag_as_required(flag_name: Any, flag_values: Any = _FV) -> None:
    """The flag must not be None once parsed (warns when its default is not None)."""
    name = _name(flag_name)
    if _values(flag_values)[name].default is not None:
        warnings.warn(
            f"Flag --{name} has a non-None default value; therefore, mark_flag_as_required "
            "will pass even if flag is not specified in the command line!",
            stacklevel=2,
        )
    register_validator(
        name,
        lambda value: value is not None,
        message=f"Flag --{name} must have a value other than None.",
        flag_values=flag_values,
    )


def mark_flags_as_required(flag_names: Any, flag_values: Any = _FV) -> None:
    for name in flag_names:
        mark_flag_as_required(name, flag_values)


def _define_absl_flags() -> None:
    """The flags absl's logging and app modules define in every TF program."""
    for name, default, text in [
        ("logtostderr", False, "Should only log to stderr?"),
        ("alsologtostderr", False, "also log to stderr?"),
        ("showprefixforinfo", True, _absl_logging.SHOWPREFIX_HELP),
    ]:
        _FV.register(Flag(_BoolParser(), name, default, text, boolean=True), "absl.logging")
    _FV.register(Flag(_Parser(), "log_dir", "", "directory to write logfiles into"), "absl.logging")
    verbosity = _VerbosityFlag(_NumberParser(), "verbosity", -1, _absl_logging.VERBOSITY_HELP, "v")
    _FV.register(verbosity, "absl.logging")
    threshold = Flag(_Parser(), "stderrthreshold", "fatal", _absl_logging.THRESHOLD_HELP)
    _FV.register(threshold, "absl.logging")
    only = Flag(
        _BoolParser(),
        "only_check_args",
        False,
        "Set to true to validate args and exit.",
        boolean=True,
    )
    _FV.register(only, "absl.app")


_define_absl_flags()
