"""``python -m symgrad check-gradients``: check gradient rules by op type, lint the registry.
``python -m symgrad api``: the TensorFlow API symgrad covers (``--write README.md`` updates
the README's section).

Exit status: 0 when every check passed (or was skipped), 1 when a check failed (with
``--lint-only``: when the lint found something), 2 on bad usage.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any

DESCRIPTION = """\
Check registered gradient rules by op type: the number, shapes and dtypes of the gradients
a rule returns (with operands of different shapes where the op broadcasts), their values
against float64 central differences, and the second order. Then lint the registry:
differentiable op types without a rule, rules named after no op type, and override maps
naming no rule. Prints one row per op type (OK / FAIL / SKIP) and the details below it."""

EPILOG = """\
With --module and no OP_TYPE, only the op types and rules those modules register are
checked (--all checks the whole registry). A module may define GRADIENT_SAMPLES =
{"OpType": [input arrays] or symgrad.tools.check.Sample(inputs, attrs=...)}; op types without
a sample are tried on generic float64 inputs.
Exit status: 0 all OK/SKIP, 1 a check FAILed (with --lint-only: a lint finding), 2 bad usage.
Example: python -m symgrad check-gradients --module my.ops MyOp"""


def _parser() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    parser = argparse.ArgumentParser(
        prog="python -m symgrad", description="symgrad command-line tools."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check = commands.add_parser(
        "check-gradients",
        help="check gradient rules by op type and lint the registry",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument(
        "op_types",
        nargs="*",
        metavar="OP_TYPE",
        help="op types to check (default: every op type with a rule)",
    )
    check.add_argument(
        "--module",
        "-m",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE first (dotted name; repeatable) so its "
        "custom_op / RegisterGradient calls run",
    )
    check.add_argument(
        "--all",
        action="store_true",
        help="with --module: check the whole registry, not only what the modules added",
    )
    check.add_argument("--lint-only", action="store_true", help="only lint the registry")
    check.add_argument(
        "--order",
        type=int,
        choices=(1, 2),
        default=2,
        help="highest derivative order to check (default: 2)",
    )
    api = commands.add_parser("api", help="list the TensorFlow API symgrad covers")
    api.add_argument(
        "--write", metavar="PATH", help="replace the API section of PATH (between the api markers)"
    )
    return parser, check


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    top, parser = _parser()
    args = top.parse_args(argv)
    if args.command == "api":
        from symgrad.tools import api

        if args.write:
            print(f"{args.write}: {'updated' if api.write(args.write) else 'unchanged'}")
        else:
            print(api.markdown())
        return 0
    from symgrad.core.gradient_registry import gradient_registry
    from symgrad.core.op_registry import OPS
    from symgrad.tools.check import check_gradients, lint_registry

    before = set(OPS) | set(gradient_registry.list())
    samples = _import_modules(parser, args.module)
    if args.lint_only:
        findings = lint_registry(samples=samples)
        print("\n".join(str(f) for f in findings) or "lint: no findings")
        return 1 if findings else 0
    names: list[str] | None = args.op_types or None
    if names is None and args.module and not args.all:
        added = (set(OPS) | set(gradient_registry.list())) - before
        names = sorted(t for t in added if t in OPS and t in gradient_registry)
    try:
        report = check_gradients(names, samples=samples, order=args.order)
    except ValueError as e:
        parser.error(str(e))
    print(report)
    return 0 if report.ok else 1


def _import_modules(parser: argparse.ArgumentParser, modules: list[str]) -> dict[str, Any]:
    samples: dict[str, Any] = {}
    for name in modules:
        try:
            module = importlib.import_module(name)
        except Exception as e:  # the user's module: report anything it raises as bad usage
            parser.error(f"--module {name}: import failed: {type(e).__name__}: {e}")
        samples.update(getattr(module, "GRADIENT_SAMPLES", {}))
    return samples


if __name__ == "__main__":
    sys.exit(main())
