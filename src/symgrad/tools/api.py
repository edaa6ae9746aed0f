"""The TensorFlow API symgrad covers, read from the code: ``python -m symgrad api``.

Lists, for each TensorFlow namespace symgrad provides (``tf``, ``tf.math``, ``tf.nn``, ...),
the public names it exports.  The README's API section is this list; a test keeps the two
equal, and ``python -m symgrad api --write README.md`` rewrites the section.
"""

from __future__ import annotations

import importlib
import types
from pathlib import Path

# TF namespaces, in the order listed; those symgrad does not have (yet) are left out.
NAMESPACES = (
    "",
    "math",
    "nn",
    "linalg",
    "random",
    "autograph",
    "autograph.experimental",
    "test",
    "errors",
    "train",
    "keras.optimizers",
    "keras.optimizers.schedules",
    "keras.losses",
    "keras.metrics",
    "data",
    "data.experimental",
    "compat.v1",
    "compat.v1.nn",
    "compat.v1.train",
)
# symgrad's own additions at the top level, which TF does not have.
OWN = frozenset(
    {
        "custom_op",
        "explain",
        "render",
        "why_none",
        "batching",
        "cases",
        "gc_pause",
        "graph",
        "nest",
        "op_registry",
        "ops",
        "runtime",
        "shapes",
        "testing",
        "tools",
        "user_ops",
        "autodiff",
    }
)
START, END = "<!-- api:start -->", "<!-- api:end -->"


def covered() -> dict[str, list[str]]:
    """``{"tf.math": [names...], ...}`` for each namespace symgrad has."""
    result: dict[str, list[str]] = {}
    for ns in NAMESPACES:
        module = _resolve(ns)
        if module is None:
            continue
        names = getattr(module, "__all__", None) or [
            n for n in dir(module) if not n.startswith("_") and _exported(getattr(module, n))
        ]
        if ns == "":
            names = [n for n in names if n not in OWN]
        result["tf" + ("." + ns if ns else "")] = sorted(set(names), key=lambda n: (n.lower(), n))
    return result


def _exported(obj: object) -> bool:
    """A function, class or value of the namespace (not a submodule or typing helper)."""
    if isinstance(obj, types.ModuleType):
        return False
    module = getattr(obj, "__module__", None) or type(obj).__module__
    return not str(module).startswith(("typing", "__future__"))


def _resolve(ns: str) -> types.ModuleType | object | None:
    obj: object = importlib.import_module("symgrad")
    for part in ns.split(".") if ns else []:
        try:
            obj = getattr(obj, part)
        except (AttributeError, ImportError):
            return None
    return obj


def markdown() -> str:
    lines = [START, "", "| namespace | names |", "|---|---|"]
    for ns, names in covered().items():
        also = " and every name of `tf`" if ns == "tf.compat.v1" else ""
        lines.append(f"| `{ns}` ({len(names)}{also}) | {', '.join(names)} |")
    return "\n".join([*lines, "", END])


def write(path: str | Path) -> bool:
    """Replace the API section of ``path``; True when it changed."""
    p = Path(path)
    text = p.read_text()
    head, sep, rest = text.partition(START)
    if not sep:
        raise ValueError(f"{path} has no {START} ... {END} section")
    _, sep, tail = rest.partition(END)
    if not sep:
        raise ValueError(f"{path}: {START} without {END}")
    new = head + markdown() + tail
    p.write_text(new)
    return new != text
