"""tf.compat.v1.flags (absl's flags API without absl): TensorFlow 2.21's outcome of each
step of tf_flags.py's program on a fresh FlagValues (values, warnings, error classes and
texts), and TF's FLAGS, which parses sys.argv when read before parsing."""

import pytest
import tf_flags

import symgrad as tf

EXPECTED = [
    ("define", ("FlagHolder", "steps", 10, False)),
    ("required None default", None),
    (
        "required with default",
        (
            "warns",
            [
                "Flag --steps has a non-None default value; therefore, mark_flag_as_required "
                "will pass even if flag is not specified in the command line!"
            ],
            None,
        ),
    ),
    ("unparsed", (False, 10, 0.25)),
    (
        "unparsed attribute",
        (
            "raises",
            "UnparsedFlagAccessError",
            "Trying to access flag --steps before flags were parsed.",
        ),
    ),
    (
        "holder before parsing",
        (
            "raises",
            "UnparsedFlagAccessError",
            "Trying to access flag --steps before flags were parsed.",
        ),
    ),
    (
        "defined twice",
        (
            "raises",
            "DuplicateFlagError",
            "The flag 'steps' is defined twice. First from <module>, second from <module>. "
            "Description from first occurrence: Steps.",
        ),
    ),
    (
        "misspelt",
        (
            "raises",
            "UnrecognizedFlagError",
            "Unknown command line flag 'stpes'. Did you mean: steps ?",
        ),
    ),
    ("unknown", ("raises", "UnrecognizedFlagError", "Unknown command line flag 'xyzzy'")),
    ("short unknown", ("raises", "UnrecognizedFlagError", "Unknown command line flag 'st'")),
    (
        "below the bound",
        ("raises", "IllegalFlagValueError", "flag --steps=-1: -1 is not a non-negative integer"),
    ),
    (
        "required missing",
        (
            "raises",
            "IllegalFlagValueError",
            "flag --data=None: Flag --data must have a value other than None.",
        ),
    ),
    ("parsed after a validation error", (True, 3)),
    (
        "--no of a non-boolean",
        (
            "raises",
            "UnrecognizedFlagError",
            "Unknown command line flag 'nosteps'. Did you mean: steps ?",
        ),
    ),
    ("--noflag=value", ("raises", "ValueError", "--nofast=1 does not take an argument")),
    ("missing value", ("raises", "Error", "Missing value for flag --data")),
    (
        "bad int",
        (
            "raises",
            "IllegalFlagValueError",
            "flag --steps=abc: invalid literal for int() with base 10: 'abc'",
        ),
    ),
    (
        "bad float",
        (
            "raises",
            "IllegalFlagValueError",
            "flag --lr=abc: could not convert string to float: 'abc'",
        ),
    ),
    (
        "bad bool",
        (
            "raises",
            "IllegalFlagValueError",
            "flag --fast=yes: ('Non-boolean argument to boolean flag', 'yes')",
        ),
    ),
    (
        "bad enum",
        (
            "raises",
            "IllegalFlagValueError",
            "flag --mode=EVAL: value should be one of <train|eval>",
        ),
    ),
    (
        "bad multi int",
        (
            "raises",
            "IllegalFlagValueError",
            "flag --ks=a: invalid literal for int() with base 10: 'a'",
        ),
    ),
    ("parse", ["p", "x", "--mode=eval"]),
    ("values", (16, True, [], [5, 6, 9], ["q"], 1000.0, "d", "train", [1.5])),
    ("flag state", (2, False, 0, True, 16, True)),
    ("later parse replaces", (["p"], [5, 6, 9], ["c", "d"])),
    ("gnu order and --", ["p", "a", "b", "-", "--x"]),
    ("known_only", ["p", "--unknown=3", "pos", "--"]),
    ("undefok", ["p", "a"]),
    ("unknown attribute", ("raises", "AttributeError", "nonexistent")),
    ("assign", (None, 7, False)),
    (
        "assign below the bound",
        ("raises", "IllegalFlagValueError", "flag --steps=-5: -5 is not a non-negative integer"),
    ),
    ("after a failed assignment", 7),
    (
        "assign an unknown flag",
        ("raises", "UnrecognizedFlagError", "Unknown command line flag 'newflag'"),
    ),
    ("case-insensitive enum", (["p"], "Blue")),
    ("get_flag_value", (7, [1.5])),
    ("get_flag_value unknown", ("raises", "AttributeError", "nope")),
    (
        "contains, len",
        (
            True,
            False,
            11,
            ["check", "color", "data", "fast", "fs", "inc", "items", "ks", "lr", "mode", "steps"],
        ),
    ),
    (
        "flag_values_dict",
        [
            ("check", False),
            ("color", "Blue"),
            ("data", "d"),
            ("fast", True),
            ("fs", [1.5]),
            ("inc", ["q"]),
            ("items", ["c", "d"]),
            ("ks", [5, 6, 9]),
            ("lr", 1000.0),
            ("mode", "train"),
            ("steps", 7),
        ],
    ),
    ("set_default", (None, 1000.0, 2.0)),
    (
        "argv a string",
        ("raises", "TypeError", "argv should be a tuple/list of strings, not bytes or string."),
    ),
    (
        "argv empty",
        (
            "raises",
            "ValueError",
            "argv cannot be an empty list, and must contain the program name as the first element.",
        ),
    ),
    (
        "validator",
        [
            (
                "raises",
                "IllegalFlagValueError",
                "flag --steps=3: must be even\nflag --lr=500.0: Flag validation failed",
            ),
            ["p"],
            ("raises", "IllegalFlagValueError", "flag --steps=5: must be even"),
        ],
    ),
    ("unparse_flags", (None, False, 10)),
    (
        "unparsed again",
        (
            "raises",
            "UnparsedFlagAccessError",
            "Trying to access flag --steps before flags were parsed.",
        ),
    ),
    ("mark_as_parsed", (None, 10)),
    (
        "help",
        "\n"
        "<module>:\n"
        "  --[no]check: Check.\n"
        "    (default: 'false')\n"
        "  --color: <red|Blue>: C.\n"
        "    (default: 'red')\n"
        "  --data: Data dir.\n"
        "  --[no]fast: Go fast.\n"
        "    (default: 'true')\n"
        "  --fs: Fs.;\n"
        "    repeat this option to specify a list of values\n"
        "    (a number)\n"
        "  --inc: Includes.;\n"
        "    repeat this option to specify a list of values\n"
        "    (default: \"['x']\")\n"
        "  --items: Items.\n"
        "    (default: 'a,b')\n"
        "    (a comma separated list)\n"
        "  --ks: Ks.;\n"
        "    repeat this option to specify a list of values\n"
        "    (default: '[1, 2]')\n"
        "    (an integer)\n"
        "  --lr: Rate.\n"
        "    (default: '2.0')\n"
        "    (a number)\n"
        "  --mode: <train|eval>: Mode.\n"
        "    (default: 'train')\n"
        "  --steps: Steps.\n"
        "    (default: '10')\n"
        "    (a non-negative integer)",
    ),
    (
        "bool of a Flag",
        (
            "raises",
            "TypeError",
            "A Flag instance would always be True. Did you mean to test the `.value` attribute?",
        ),
    ),
    ("enum without values", ("raises", "ValueError", 'enum_values cannot be empty, found "[]"')),
    (
        "string default not a str",
        (
            "raises",
            "IllegalFlagValueError",
            "flag --s2=5: flag value must be a string, found \"<class 'int'>\"",
        ),
    ),
]


def test_each_step_as_tensorflow():
    got = tf_flags.program(tf.compat.v1.flags)
    assert [label for label, _ in got] == [label for label, _ in EXPECTED]
    for (label, outcome), (_, expected) in zip(got, EXPECTED):
        assert outcome == expected, label


def test_error_classes():
    flags = tf.compat.v1.flags
    for cls in (
        flags.IllegalFlagValueError,
        flags.UnrecognizedFlagError,
        flags.UnparsedFlagAccessError,
        flags.DuplicateFlagError,
        flags.ValidationError,
    ):
        assert issubclass(cls, flags.Error)
    e = flags.UnrecognizedFlagError("stpes", "3", ["steps"])
    assert (e.flagname, e.flagvalue, str(e)) == (
        "stpes",
        "3",
        "Unknown command line flag 'stpes'. Did you mean: steps ?",
    )
    assert tf.compat.v1.app.flags is flags


def test_tfs_FLAGS_parses_sys_argv_when_read_unparsed(monkeypatch):
    """TF's FLAGS (not absl's) parses sys.argv at the first read of a flag; a holder
    still raises, as absl's."""
    flags = tf.compat.v1.flags
    fv = flags.FlagValues()
    wrapped = type(flags.FLAGS)(fv)
    holder = flags.DEFINE_integer("epochs", 1, "Epochs.", flag_values=fv)
    with pytest.raises(flags.UnparsedFlagAccessError):
        holder.value  # noqa: B018
    monkeypatch.setattr("sys.argv", ["prog", "--epochs=4"])
    assert wrapped.epochs == 4 and fv.is_parsed() and holder.value == 4
    monkeypatch.setattr("sys.argv", ["prog", "--nope"])
    fv.unparse_flags()
    with pytest.raises(flags.UnrecognizedFlagError, match="Unknown command line flag 'nope'"):
        wrapped.epochs  # noqa: B018
    assert not hasattr(wrapped, "_private")  # introspection parses nothing


def test_the_global_FLAGS_has_absls_logging_and_app_flags():
    fv = tf.compat.v1.flags.FLAGS
    assert fv["verbosity"] is fv["v"] and fv["verbosity"].default == -1
    assert [fv[n].default for n in ("logtostderr", "alsologtostderr", "only_check_args")] == [
        False,
        False,
        False,
    ]
    assert fv["stderrthreshold"].default == "fatal" and fv["showprefixforinfo"].default is True
