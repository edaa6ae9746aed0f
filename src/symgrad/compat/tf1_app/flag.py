"""absl's flag classes, without absl: the errors, the parsers of a flag's text, ``Flag``
and validators (see :mod:`symgrad.compat.tf1_app.flags`); texts and rules are absl's."""

from __future__ import annotations

import csv
import itertools
from typing import TYPE_CHECKING, Any

from symgrad.compat.tf1_app import absl_logging as _absl_logging

if TYPE_CHECKING:
    from symgrad.compat.tf1_app.flagvalues import FlagValues


class Error(Exception):
    """The base class of the flags errors."""


class IllegalFlagValueError(Error):
    """A flag's value (from the command line, an assignment or a validator) is illegal."""


class UnparsedFlagAccessError(Error):
    """A flag's value was read before the flags were parsed."""


class ValidationError(Error):
    """A validator's constraint is not satisfied."""


class DuplicateFlagError(Error):
    """A flag name is defined twice."""


class UnrecognizedFlagError(Error):
    """A flag on the command line (or assigned) that is not defined."""

    def __init__(self, flagname: str, flagvalue: Any = "", suggestions: Any = ()) -> None:
        self.flagname, self.flagvalue = flagname, flagvalue
        tip = f". Did you mean: {', '.join(suggestions)} ?" if suggestions else ""
        super().__init__(f"Unknown command line flag '{flagname}'{tip}")


# Parsers: a flag's value from its text (or a value given as default), absl's rules and texts.
class _Parser:
    syntactic_help = ""
    type_name = "string"

    def parse(self, argument: Any) -> Any:
        if not isinstance(argument, str):
            raise TypeError(f'flag value must be a string, found "{type(argument)}"')
        return argument


class _BoolParser(_Parser):
    type_name = "bool"

    def parse(self, argument: Any) -> bool:
        if isinstance(argument, str):
            if argument.lower() in ("true", "t", "1"):
                return True
            if argument.lower() in ("false", "f", "0"):
                return False
        elif isinstance(argument, int) and argument == bool(argument):
            return bool(argument)
        elif not isinstance(argument, int):
            raise TypeError("Non-boolean argument to boolean flag", argument)
        raise ValueError("Non-boolean argument to boolean flag", argument)


class _NumberParser(_Parser):
    article, noun = "an", "integer"
    kind: type = int

    def __init__(self, lower_bound: Any = None, upper_bound: Any = None) -> None:
        self.lower_bound, self.upper_bound = lower_bound, upper_bound
        lo, hi, noun = lower_bound, upper_bound, self.noun
        sh = f"{self.article} {noun}"
        if lo is not None and hi is not None:
            sh = f"{sh} in the range [{lo}, {hi}]"
        elif self.kind is int and lo == 1:
            sh = f"a positive {noun}"
        elif self.kind is int and hi == -1:
            sh = f"a negative {noun}"
        elif lo == 0:
            sh = f"a non-negative {noun}"
        elif hi == 0:
            sh = f"a non-positive {noun}"
        elif hi is not None:
            sh = f"{noun} <= {hi}"
        elif lo is not None:
            sh = f"{noun} >= {lo}"
        self.syntactic_help = sh
        self.type_name = "int" if self.kind is int else "float"

    def outside(self, val: Any) -> bool:
        lo, hi = self.lower_bound, self.upper_bound
        return (lo is not None and val < lo) or (hi is not None and val > hi)

    def parse(self, argument: Any) -> Any:
        val = self.convert(argument)
        if self.outside(val):
            raise ValueError(f"{val} is not {self.syntactic_help}")
        return val

    def convert(self, argument: Any) -> Any:
        if isinstance(argument, int) and not isinstance(argument, bool):
            return argument
        if isinstance(argument, str):
            base = 10
            if len(argument) > 2 and argument[0] == "0":
                base = {"o": 8, "x": 16}.get(argument[1], 10)
            return int(argument, base)
        raise TypeError(f"Expect argument to be a string or int, found {type(argument)}")


class _FloatParser(_NumberParser):
    article, noun, kind = "a", "number", float

    def convert(self, argument: Any) -> Any:
        if isinstance(argument, int | float | str) and not isinstance(argument, bool):
            return float(argument)
        raise TypeError(f"Expect argument to be a string, int, or float, found {type(argument)}")


class _EnumParser(_Parser):
    type_name = "string enum"

    def __init__(self, enum_values: Any, case_sensitive: bool = True) -> None:
        if not enum_values:
            raise ValueError(f'enum_values cannot be empty, found "{enum_values}"')
        if isinstance(enum_values, str):
            raise ValueError(f'enum_values cannot be a str, found "{enum_values}"')
        self.enum_values, self.case_sensitive = list(enum_values), case_sensitive

    def parse(self, argument: Any) -> Any:
        found = [
            v
            for v in self.enum_values
            if v == argument or (not self.case_sensitive and v.upper() == argument.upper())
        ]
        if not found:
            raise ValueError(f"value should be one of <{'|'.join(self.enum_values)}>")
        return found[0]


class _ListParser(_Parser):
    syntactic_help = "a comma separated list"
    type_name = "comma separated list of strings"

    def parse(self, argument: Any) -> Any:
        if isinstance(argument, list):
            return argument
        if not argument:
            return []
        try:
            return [s.strip() for s in next(iter(csv.reader([argument], strict=True)))]
        except csv.Error as e:
            raise ValueError(
                f"Unable to parse the value {argument!r} as a {self.type_name}: {e}"
            ) from e


class Flag:
    """One flag: its parser, default, current value and how often it was given."""

    def __init__(
        self,
        parser: _Parser,
        name: str,
        default: Any,
        help_string: str | None,
        short_name: str | None = None,
        boolean: bool = False,
        serialize: Any = str,
    ) -> None:
        self.name, self.short_name, self.boolean, self.parser = name, short_name, boolean, parser
        self.help = help_string or "(no help available)"
        self.present, self.using_default_value = 0, True
        self.validators: list[_Validator] = []
        self._serialize = serialize
        self._value: Any = None
        self._set_default(default)

    @property
    def value(self) -> Any:
        return self._value

    @value.setter
    def value(self, value: Any) -> None:
        self._value = value

    def parse(self, argument: Any) -> None:
        self.value = self._parse(argument)
        self.present += 1

    def _parse(self, argument: Any) -> Any:
        try:
            return self.parser.parse(argument)
        except (TypeError, ValueError, OverflowError) as e:
            raise IllegalFlagValueError(f"flag --{self.name}={argument}: {e}") from None

    def unparse(self) -> None:
        self.value, self.using_default_value, self.present = self.default, True, 0

    def _set_default(self, value: Any) -> None:
        self.default = None if value is None else self._parse(value)
        if self.default is None:
            self.default_as_str = None
        elif self.boolean:
            self.default_as_str = repr("true" if self.default else "false")
        else:
            self.default_as_str = repr(self._serialize(self.default))
        if self.using_default_value:
            self.value = self.default

    def flag_type(self) -> str:
        return self.parser.type_name

    def __bool__(self) -> bool:
        raise TypeError(
            "A Flag instance would always be True. Did you mean to test the `.value` attribute?"
        )


class _MultiFlag(Flag):
    """A flag given any number of times; its value is the list of the values given."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help += ";\n    repeat this option to specify a list of values"

    def parse(self, argument: Any) -> None:
        new = self._parse(argument)
        if self.present:
            self.value.extend(new)
        else:
            self.value = new
        self.present += len(new)

    def _parse(self, argument: Any) -> Any:
        items = list(argument) if isinstance(argument, list | tuple) else [argument]
        return [Flag._parse(self, item) for item in items]

    def flag_type(self) -> str:
        return "multi " + self.parser.type_name


class _VerbosityFlag(Flag):
    """absl's ``--verbosity``/``-v``: setting it sets the root logger's level once
    ``app.run`` has installed absl's handler (see ``_absl_logging``)."""

    @property
    def value(self) -> Any:
        return self._value

    @value.setter
    def value(self, value: Any) -> None:
        self._value = value
        _absl_logging.update_levels(value)


class _Validator:
    """A check of one flag's value (or of several flags' values, as a dict)."""

    made = itertools.count()  # validators run in the order they were made, as absl's

    def __init__(self, names: list[str], checker: Any, message: str, multi: bool) -> None:
        self.names, self.checker, self.message, self.multi = names, checker, message, multi
        self.index = next(self.made)

    def verify(self, fv: FlagValues) -> None:
        values = [fv[n].value for n in self.names]
        arg = dict(zip(self.names, values)) if self.multi else values[0]
        if not self.checker(arg):
            raise ValidationError(self.message)

    def describe(self, fv: FlagValues) -> str:
        if self.multi:
            return "flags " + ", ".join(f"{n}={fv[n].value}" for n in self.names)
        return f"flag --{self.names[0]}={fv[self.names[0]].value}"
