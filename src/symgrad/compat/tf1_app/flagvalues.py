"""absl's ``FlagValues`` without absl: the registry ``FLAGS`` is, its parsing of a command
line, validation and help (see :mod:`symgrad.compat.tf1_app.flags`); TF's wrapper of it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

from symgrad.compat.tf1_app.flag import (
    DuplicateFlagError,
    Error,
    Flag,
    IllegalFlagValueError,
    UnparsedFlagAccessError,
    UnrecognizedFlagError,
    ValidationError,
)
from symgrad.compat.tf1_app.help_text import usage_lines as _usage_lines


class FlagValues:
    """A registry of flags: ``fv(argv)`` parses, ``fv.name`` is a flag's value."""

    def __init__(self) -> None:
        object.__setattr__(self, "_state", {"flags": {}, "parsed": False, "modules": {}})

    def _flags(self) -> dict[str, Flag]:
        return self._state["flags"]  # type: ignore[no-any-return]

    def __getitem__(self, name: str) -> Flag:
        return self._flags()[name]

    def __contains__(self, name: str) -> bool:
        return name in self._flags()

    def __len__(self) -> int:
        return len(self._flags())

    def __iter__(self) -> Iterator[str]:
        return iter(self._flags())

    def __dir__(self) -> list[str]:
        return sorted(self._flags())

    def __getattr__(self, name: str) -> Any:
        flag = self._flags().get(name)
        if flag is None:
            raise AttributeError(name)
        if self._state["parsed"] or flag.present:
            return flag.value
        raise UnparsedFlagAccessError(f"Trying to access flag --{name} before flags were parsed.")

    def __setattr__(self, name: str, value: Any) -> None:
        flag = self._flags().get(name)
        if flag is None:
            raise UnrecognizedFlagError(name, value)
        old = flag.value
        flag.value = value
        try:
            self._assert_validators(flag.validators)
        except BaseException:
            flag.value = old
            raise
        flag.using_default_value = False

    def register(self, flag: Flag, module: str) -> None:
        """Adds ``flag`` (absl's ``fv[name] = flag``), defined in ``module``."""
        fl = self._flags()
        for key in (flag.name, flag.short_name):
            if key is not None and key in fl:
                first = self._module_of(key)
                raise DuplicateFlagError(
                    f"The flag '{key}' is defined twice. First from {first}, second from "
                    f"{module}. Description from first occurrence: {fl[key].help}"
                )
        fl[flag.name] = flag
        if flag.short_name:
            fl[flag.short_name] = flag
        self._state["modules"].setdefault(module, []).append(flag)

    def _module_of(self, name: str) -> str:
        for module, flags in self._state["modules"].items():
            if any(f is self._flags()[name] for f in flags):
                return str(module)
        return "<unknown>"

    def __call__(self, argv: Any, known_only: bool = False) -> list[str]:
        """Parses ``argv`` (``argv[0]`` is the program); returns it without the flags."""
        if isinstance(argv, str | bytes):
            raise TypeError("argv should be a tuple/list of strings, not bytes or string.")
        if not argv:
            raise ValueError(
                "argv cannot be an empty list, and must contain the program name as the "
                "first element."
            )
        unknown, rest = self._parse_args(list(argv[1:]), known_only)
        for name, _ in unknown:
            raise UnrecognizedFlagError(name, "", _suggestions(name, list(self)))
        self.mark_as_parsed()
        self.validate_all_flags()
        return [argv[0], *rest]

    def _parse_args(self, args: list[str], known_only: bool) -> tuple[list[Any], list[str]]:
        """absl's loop: ``(unknown (name, arg) pairs, the arguments left)``."""
        pending: list[tuple[str | None, str]] = []
        undefok: set[str] = set()
        it = iter(args)
        for arg in it:
            if arg == "--":
                if known_only:
                    pending.append((None, arg))
                break
            body = arg[2:] if arg.startswith("--") else arg[1:]
            name, eq, given = body.partition("=")
            if not arg.startswith("-") or not name:  # an argument, or only dashes
                pending.append((None, arg))
                continue
            value = given if eq else None

            def get_value(arg: str = arg, value: str | None = value) -> str:
                if value is not None:
                    return value
                try:
                    return next(it)
                except StopIteration:
                    raise Error("Missing value for flag " + arg) from None

            if name == "undefok":
                names = [v.strip() for v in get_value().split(",")]
                undefok.update(names + ["no" + v for v in names])
                continue
            flag, value = self._flag_for(name, value, arg)
            if flag is None:
                pending.append((name, arg))
                continue
            flag.parse(("true" if flag.boolean else get_value()) if value is None else value)
            flag.using_default_value = False
        unknown = [(n, a) for n, a in pending if n is not None and n not in undefok]
        rest = [a for n, a in pending if n is None or (known_only and n not in undefok)]
        return ([] if known_only else unknown), rest + list(it)

    def _flag_for(self, name: str, value: str | None, arg: str) -> tuple[Flag | None, Any]:
        """The flag ``--name`` sets (``--noname`` a boolean's, to "false") and its value."""
        fl = self._flags()
        if name in fl:
            return fl[name], value
        negated = fl.get(name[2:]) if name.startswith("no") and len(name) > 2 else None
        if negated is not None and negated.boolean:
            if value is not None:
                raise ValueError(arg + " does not take an argument")
            return negated, "false"
        return None, value

    def is_parsed(self) -> bool:
        return bool(self._state["parsed"])

    def mark_as_parsed(self) -> None:
        self._state["parsed"] = True

    def unparse_flags(self) -> None:
        for f in self._flags().values():
            f.unparse()
        self._state["parsed"] = False

    def validate_all_flags(self) -> None:
        self._assert_validators({v for f in self._flags().values() for v in f.validators})

    def _assert_validators(self, validators: Any) -> None:
        messages: list[str] = []
        bad: set[str] = set()
        for v in sorted(validators, key=lambda v: v.index):
            if bad & set(v.names):
                continue
            try:
                v.verify(self)
            except ValidationError as e:
                bad |= set(v.names)
                messages.append(f"{v.describe(self)}: {e}")
        if messages:
            raise IllegalFlagValueError("\n".join(messages))

    def flag_values_dict(self) -> dict[str, Any]:
        return {name: flag.value for name, flag in self._flags().items()}

    def get_flag_value(self, name: str, default: Any) -> Any:
        value = self.__getattr__(name)
        return default if value is None else value

    def set_default(self, name: str, value: Any) -> None:
        flag = self._flags().get(name)
        if flag is None:
            raise UnrecognizedFlagError(name, value)
        flag._set_default(value)
        self._assert_validators(flag.validators)

    def flags_by_module_dict(self) -> dict[str, list[Flag]]:
        return dict(self._state["modules"])

    def get_help(self, prefix: str = "", include_special_flags: bool = True) -> str:
        """Every module's flags, the main program's first (``--helpfull``)."""
        modules = sorted(self._state["modules"])
        if sys.argv[0] in modules:
            modules.remove(sys.argv[0])
            modules.insert(0, sys.argv[0])
        lines = [_usage_lines(m, self._state["modules"][m], prefix) for m in modules]
        return "\n".join(line for line in lines if line)

    def module_help(self, module: Any) -> str:
        name = module if isinstance(module, str) else module.__name__
        return _usage_lines(name, self._state["modules"].get(name, []), "")

    def main_module_help(self) -> str:
        return self.module_help(sys.argv[0])

    def __str__(self) -> str:
        return self.get_help()


def _suggestions(attempt: str, names: list[str]) -> list[str]:
    """absl's: the defined names nearest to ``attempt`` by edit distance of prefixes."""
    if len(attempt) <= 2 or not names:
        return []
    distances = sorted((_distance(attempt, n[: len(attempt)]), n) for n in names)
    least = distances[0][0]
    if least >= 0.5 * len(attempt):
        return []
    return [n for d, n in distances if d == least]


def _distance(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (with adjacent transpositions)."""
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(
                d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])
            )
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


class _FlagValuesWrapper:
    """TF's ``FLAGS``: absl's, but reading a flag before parsing parses ``sys.argv``."""

    def __init__(self, flag_values: FlagValues) -> None:
        self.__dict__["__wrapped"] = flag_values

    def __getattribute__(self, name: str) -> Any:
        if name == "__dict__":
            return super().__getattribute__(name)
        return self.__dict__["__wrapped"].__getattribute__(name)

    def __getattr__(self, name: str) -> Any:
        wrapped = self.__dict__["__wrapped"]
        if name.startswith("_") and name not in wrapped:  # introspection parses nothing
            raise AttributeError(name)
        if not wrapped.is_parsed():
            wrapped(sys.argv)
        return wrapped.__getattr__(name)

    def __setattr__(self, name: str, value: Any) -> None:
        self.__dict__["__wrapped"].__setattr__(name, value)

    def __dir__(self) -> list[str]:
        return self.__dict__["__wrapped"].__dir__()  # type: ignore[no-any-return]

    def __getitem__(self, name: str) -> Flag:
        return self.__dict__["__wrapped"].__getitem__(name)  # type: ignore[no-any-return]

    def __contains__(self, name: str) -> bool:
        return name in self.__dict__["__wrapped"]

    def __len__(self) -> int:
        return len(self.__dict__["__wrapped"])

    def __iter__(self) -> Iterator[str]:
        return iter(self.__dict__["__wrapped"])

    def __str__(self) -> str:
        return str(self.__dict__["__wrapped"])

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__dict__["__wrapped"](*args, **kwargs)
