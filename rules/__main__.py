"""`python -m rules`: the offline JSON calculators (hex maths, dice verification, each ruleset).

Reads one JSON object on stdin where a command takes one and prints one JSON object. Bad input
exits with code 2 and one line on stderr naming the field; nothing is printed on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from rules import dice, hexgrid
from rules.jsonio import (
    InputError,
    JSONObject,
    as_object,
    child,
    get_int,
    get_list,
    get_str,
    only_fields,
)
from rules.registry import RULESETS, get_ruleset

EXIT_BAD_INPUT = 2


def _label(value: str, field: str) -> hexgrid.Hex:
    try:
        return hexgrid.parse_label(value)
    except hexgrid.HexLabelError as exc:
        raise InputError(field, str(exc)) from None


def hex_distance(a: str, b: str) -> object:
    return hexgrid.distance(_label(a, "from"), _label(b, "to"))


def hex_neighbors(label: str) -> object:
    h = _label(label, "hex")
    out: dict[str, str] = {}
    for direction, n in hexgrid.neighbors(h).items():
        col, row = hexgrid.hex_to_offset(n)
        if col >= 0 and row >= 1:
            out[direction.name] = hexgrid.format_label(n)
    return out


def dice_verify(data: JSONObject) -> dict[str, object]:
    only_fields(data, {"seed", "commitment", "rolls", "draw"}, "")
    seed = get_str(data, "seed")
    commitment = get_str(data, "commitment")
    rolls = []
    for i, raw in enumerate(get_list(data, "rolls")):
        path = child("rolls", i)
        item = as_object(raw, path)
        only_fields(item, {"number", "purpose", "sides", "value"}, path)
        rolls.append(
            dice.Roll(
                number=get_int(item, "number", path, minimum=1),
                purpose=get_str(item, "purpose", path),
                sides=get_int(item, "sides", path, minimum=2),
                value=get_int(item, "value", path, minimum=1),
            )
        )
    # An alliance's draw: rolls from `first_roll` on come from the seed mixed with its text.
    first = len(rolls) + 10**9
    mixed = seed
    if "draw" in data:
        draw = as_object(data["draw"], "draw")
        only_fields(draw, {"text", "first_roll"}, "draw")
        if not isinstance(draw.get("text"), str):
            raise InputError("draw.text", "is required: the draw's text (may be empty).")
        first = get_int(draw, "first_roll", "draw", minimum=1)
        mixed = dice.mix_draw(seed, str(draw["text"]))
    result = dice.verify(seed=seed, commitment=commitment,
                         rolls=[r for r in rolls if r.number < first])
    checks = list(result.results) + list(dice.verify(
        seed=mixed, commitment=dice.commitment(mixed),
        rolls=[r for r in rolls if r.number >= first]).results)
    checks.sort(key=lambda c: c.roll.number)
    return {
        "commitment_ok": result.commitment_ok,
        "all_ok": result.commitment_ok and all(c.matches for c in checks),
        "rolls": [
            {
                "number": c.roll.number,
                "purpose": c.roll.purpose,
                "sides": c.roll.sides,
                "value": c.roll.value,
                "expected": c.expected,
                "matches": c.matches,
            }
            for c in checks
        ],
    }


def dice_commit(data: JSONObject) -> dict[str, object]:
    only_fields(data, {"seed"}, "")
    seed = get_str(data, "seed")
    return {"commitment": dice.commitment(seed)}


def read_stdin_object() -> JSONObject:
    text = sys.stdin.read()
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError("input", f"is not valid JSON ({exc.msg} at line {exc.lineno}).") from None
    return as_object(value, "input")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rules",
        description=(
            "Offline calculators of the rules engine. Commands that take input read one JSON "
            "object on stdin and print one JSON object; bad input exits with code 2 and a "
            "one-line message on stderr naming the field. See docs/rules/calculator.md."
        ),
    )
    groups = parser.add_subparsers(dest="group", required=True, metavar="GROUP")

    hex_parser = groups.add_parser("hex", help="hex labels and distances (no stdin)")
    hex_commands = hex_parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    distance = hex_commands.add_parser("distance", help="distance in hexes, e.g. A1 J10 → 14")
    distance.add_argument("a", metavar="FROM")
    distance.add_argument("b", metavar="TO")
    neighbors = hex_commands.add_parser(
        "neighbors", help="the on-grid neighbours of a hex by direction"
    )
    neighbors.add_argument("label", metavar="HEX")

    dice_parser = groups.add_parser("dice", help="verifiable dice (JSON on stdin)")
    dice_commands = dice_parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    dice_commands.add_parser(
        "verify", help='{"seed", "commitment", "rolls": [{"number", "purpose", "sides", '
        '"value"}], optional "draw": {"text", "first_roll"}}'
    )
    dice_commands.add_parser("commit", help='{"seed"} → {"commitment": SHA-256 of the seed}')

    for key in RULESETS:
        ruleset = get_ruleset(key)
        sub = groups.add_parser(key, help=f"{ruleset.name} calculators (JSON on stdin)")
        commands = sub.add_subparsers(dest="command", required=True, metavar="COMMAND")
        for name, calculator in ruleset.calculators().items():
            doc = (calculator.__doc__ or "").strip().splitlines()
            commands.add_parser(name, help=doc[0] if doc else name)
    return parser


def run(argv: Sequence[str]) -> object:
    args = build_parser().parse_args(argv)
    if args.group == "hex":
        if args.command == "distance":
            return hex_distance(args.a, args.b)
        return hex_neighbors(args.label)
    if args.group == "dice":
        handler = dice_verify if args.command == "verify" else dice_commit
        return handler(read_stdin_object())
    calculator = get_ruleset(args.group).calculators()[args.command]
    return calculator(read_stdin_object())


def main(argv: Sequence[str] | None = None) -> int:
    try:
        result = run(sys.argv[1:] if argv is None else argv)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ValueError as exc:
        # A rule refusing the input (a domain error): still bad input, one line.
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    json.dump(result, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
