"""tf.compat.v1.flags programs that run unchanged on TensorFlow (absl's flags) and on
symgrad, on a fresh FlagValues; each step's outcome is its value or its error's class and
text.

Run with TensorFlow's interpreter to (re)make the literals of test_tf1_flags.py::

    PYTHONPATH=src <tf-python> tests/compat/tf_flags.py
"""

from __future__ import annotations

import pprint
import sys
import warnings
from collections.abc import Callable
from typing import Any


def _module() -> str:
    """The name absl gives this module as the definer of its flags."""
    return sys.argv[0] if __name__ == "__main__" else __name__


def _outcome(f: Callable[[], Any]) -> Any:
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            value = f()
    except Exception as e:
        return ("raises", type(e).__name__, str(e).replace(_module(), "<module>"))
    if isinstance(value, str):
        value = value.replace(_module(), "<module>")
    if seen:
        return ("warns", [str(w.message) for w in seen], value)
    return value


def program(flags: Any) -> list[tuple[str, Any]]:
    """Steps on one FlagValues, in order."""
    fv = flags.FlagValues()
    steps: list[tuple[str, Callable[[], Any]]] = []

    def step(label: str, f: Callable[[], Any]) -> None:
        steps.append((label, f))

    holder: dict[str, Any] = {}

    def define() -> Any:
        holder["steps"] = flags.DEFINE_integer("steps", 10, "Steps.", lower_bound=0, flag_values=fv)
        flags.DEFINE_string("data", None, "Data dir.", flag_values=fv)
        flags.DEFINE_boolean("fast", True, "Go fast.", flag_values=fv)
        flags.DEFINE_bool("check", False, "Check.", flag_values=fv)
        flags.DEFINE_float("lr", "0.25", "Rate.", flag_values=fv)
        flags.DEFINE_list("items", "a,b", "Items.", flag_values=fv)
        flags.DEFINE_enum("mode", "train", ["train", "eval"], "Mode.", flag_values=fv)
        flags.DEFINE_multi_string("inc", "x", "Includes.", flag_values=fv)
        flags.DEFINE_multi_integer("ks", [1, 2], "Ks.", flag_values=fv)
        flags.DEFINE_multi_float("fs", None, "Fs.", flag_values=fv)
        h = holder["steps"]
        return type(h).__name__, h.name, h.default, h.present

    step("define", define)
    step("required None default", lambda: flags.mark_flag_as_required("data", flag_values=fv))
    step("required with default", lambda: flags.mark_flag_as_required("steps", flag_values=fv))
    step("unparsed", lambda: (fv.is_parsed(), fv["steps"].value, fv["lr"].default))
    step("unparsed attribute", lambda: fv.steps)
    step("holder before parsing", lambda: holder["steps"].value)
    step("defined twice", lambda: flags.DEFINE_integer("steps", 3, "Again.", flag_values=fv))
    step("misspelt", lambda: fv(["p", "--stpes=3"]))
    step("unknown", lambda: fv(["p", "--xyzzy"]))
    step("short unknown", lambda: fv(["p", "--st=3"]))
    step("below the bound", lambda: fv(["p", "--steps=-1", "--data=d"]))
    step("required missing", lambda: fv(["p", "--steps=3"]))
    step("parsed after a validation error", lambda: (fv.is_parsed(), fv.steps))
    step("--no of a non-boolean", lambda: fv(["p", "--nosteps"]))
    step("--noflag=value", lambda: fv(["p", "--nofast=1", "--data=d"]))
    step("missing value", lambda: fv(["p", "--data"]))
    step("bad int", lambda: fv(["p", "--data=d", "--steps=abc"]))
    step("bad float", lambda: fv(["p", "--data=d", "--lr=abc"]))
    step("bad bool", lambda: fv(["p", "--data=d", "--fast=yes"]))
    step("bad enum", lambda: fv(["p", "--data=d", "--mode", "EVAL"]))
    step("bad multi int", lambda: fv(["p", "--data=d", "--ks=a"]))
    step(
        "parse",
        lambda: fv(
            ["p", "--fast", "x", "--steps", "0x10", "--data", "d", "--items=", "--ks=5", "--ks",
             "6", "-inc=q", "--lr=1e3", "--nocheck", "--fs", "1.5", "--", "--mode=eval"]
        ),
    )  # fmt: skip
    step(
        "values",
        lambda: (fv.steps, fv.fast, fv.items, fv.ks, fv.inc, fv.lr, fv.data, fv.mode, fv.fs),
    )
    step(
        "flag state",
        lambda: (
            fv["steps"].present,
            fv["steps"].using_default_value,
            fv["mode"].present,
            fv["mode"].using_default_value,
            holder["steps"].value,
            holder["steps"].present,
        ),
    )
    step("later parse replaces", lambda: (fv(["p", "--ks=9", "--items=c, d"]), fv.ks, fv.items))
    step("gnu order and --", lambda: fv(["p", "a", "--steps=4", "b", "-", "--", "--x"]))
    step(
        "known_only", lambda: fv(["p", "--unknown=3", "pos", "--steps", "5", "--"], known_only=True)
    )
    step("undefok", lambda: fv(["p", "--undefok=zz,yy", "--zz=3", "--noyy", "a"]))
    step("unknown attribute", lambda: fv.nonexistent)
    step("assign", lambda: (setattr(fv, "steps", 7), fv.steps, fv["steps"].using_default_value))
    step("assign below the bound", lambda: setattr(fv, "steps", -5))
    step("after a failed assignment", lambda: fv.steps)
    step("assign an unknown flag", lambda: setattr(fv, "newflag", 1))
    step("case-insensitive enum", lambda: _enum(flags, fv))
    step("get_flag_value", lambda: (fv.get_flag_value("steps", 0), fv.get_flag_value("fs", 3)))
    step("get_flag_value unknown", lambda: fv.get_flag_value("nope", 0))
    step("contains, len", lambda: ("steps" in fv, "nope" in fv, len(fv), sorted(fv)))
    step("flag_values_dict", lambda: sorted(fv.flag_values_dict().items()))
    step("set_default", lambda: (fv.set_default("lr", 2), fv.lr, fv["lr"].default))
    step("argv a string", lambda: fv("p"))
    step("argv empty", lambda: fv([]))
    step("validator", lambda: _validator(flags, fv))
    step("unparse_flags", lambda: (fv.unparse_flags(), fv.is_parsed(), fv["steps"].value))
    step("unparsed again", lambda: fv.steps)
    step("mark_as_parsed", lambda: (fv.mark_as_parsed(), fv.steps))
    step("help", lambda: fv.module_help(_module()))
    step("bool of a Flag", lambda: bool(fv["steps"]))
    step("enum without values", lambda: flags.DEFINE_enum("e2", None, [], "E.", flag_values=fv))
    step("string default not a str", lambda: flags.DEFINE_string("s2", 5, "S.", flag_values=fv))
    return [(label, _outcome(f)) for label, f in steps]


def _enum(flags: Any, fv: Any) -> Any:
    flags.DEFINE_enum("color", "red", ["red", "Blue"], "C.", flag_values=fv, case_sensitive=False)
    return fv(["p", "--color=BLUE"]), fv.color


def _validator(flags: Any, fv: Any) -> Any:
    flags.register_validator("steps", lambda v: v % 2 == 0, "must be even", flag_values=fv)

    @flags.validator("lr", flag_values=fv)
    def _small(value: Any) -> bool:
        return bool(value < 100)

    outcomes = [_outcome(lambda: fv(["p", "--steps=3", "--lr=500"]))]
    outcomes.append(_outcome(lambda: fv(["p", "--steps=4", "--lr=5"])))
    outcomes.append(_outcome(lambda: setattr(fv, "steps", 5)))
    return outcomes


if __name__ == "__main__":
    import tensorflow as tf

    out = program(tf.compat.v1.flags)
    sys.stdout.write("EXPECTED = " + pprint.pformat(out, width=100) + "\n")
