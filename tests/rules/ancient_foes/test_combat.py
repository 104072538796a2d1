"""Ancient Foes 2 fire and fight orders: the case tables, seeded dice, the ruleset hook."""

import json

import pytest

from rules import dice
from rules.ancient_foes.battlefield import BandUnit, FieldBand
from rules.ancient_foes.combat import FightOrder, FireOrder, OrderError, resolve_fire
from rules.ancient_foes.units import parse_code
from rules.hexgrid import parse_label
from rules.registry import get_ruleset

from .harness import calculate, check_case, load


@pytest.mark.parametrize("case", load("fire"))
def test_fire_case(case):
    check_case("fire", case)


@pytest.mark.parametrize("case", load("fight"))
def test_fight_case(case):
    check_case("fight", case)


FIRE = {
    "band": {"name": "Archers", "units": [{"name": "A", "code": "L-Bo-Fo", "hex": "A2"},
                                          {"name": "B", "code": "L-Bo-Fo", "hex": "A3"}]},
    "target": {"name": "Foot", "units": [{"name": "T1", "code": "L-Sw-Fo", "hex": "D2"},
                                         {"name": "T2", "code": "L-Sw-Fo", "hex": "D3"}]},
}


def test_seeded_fire_prints_seed_commitment_and_every_die():
    seed = "ab" * 32
    code, out, err = calculate("fire", {**FIRE, "seed": seed})
    assert (code, err) == (0, "")
    assert out["seed"] == seed
    assert out["commitment"] == dice.commitment(seed)
    rolls = [dice.Roll(number=d["number"], purpose=d["purpose"], sides=d["sides"],
                       value=d["value"]) for d in out["dice"]]
    assert [a["roll"] for a in out["attacks"]] == [r.value for r in rolls]
    assert dice.verify(seed=seed, commitment=out["commitment"], rolls=rolls).all_ok
    # Replaying the printed dice gives the same result.
    code2, again, _ = calculate("fire", {**FIRE, "rolls": [r.value for r in rolls]})
    assert code2 == 0
    assert again["attacks"] == out["attacks"]


def test_fresh_seed_when_no_dice_are_given():
    code, out, _ = calculate("fire", FIRE)
    assert code == 0
    assert len(out["seed"]) == 64
    assert out["commitment"] == dice.commitment(out["seed"])


def test_no_seed_printed_when_no_die_is_rolled():
    far = {**FIRE, "target": {"name": "Far", "units": [{"code": "L-Sw-Fo", "hex": "K2"}]}}
    code, out, _ = calculate("fire", far)
    assert code == 0
    assert "seed" not in out
    assert out["dice"] == []


def _band(name, *units, **flags):
    return FieldBand(name=name, units=tuple(
        BandUnit(name=n, unit_type=parse_code(c), hex=parse_label(h)) for n, c, h in units
    ), **flags)


def test_ruleset_resolves_fire_and_fight_orders():
    ruleset = get_ruleset("ancient_foes")
    archers = _band("Archers", ("A", "L-Bo-Fo", "B2"))
    foot = _band("Foot", ("T", "L-Sw-Fo", "C2"))
    fired = ruleset.resolve_combat(FireOrder(firing=archers, target=foot),
                                   dice=dice.FixedDice([3]))
    # 3 + 2 - 1 (single-unit band) = 4 >= 4.
    assert (fired.casualties, fired.target_destroyed) == (("T",), True)
    fought = ruleset.resolve_combat(FightOrder(fighting=archers, target=foot),
                                    dice=dice.FixedDice([3]))
    # 3 + 2 - 1 (ranged fighting non-ranged) = 4 >= 4.
    assert fought.attacks[0].total == 4
    assert fought.explain()[-1] == "die #1 fight: A against T: 3"


def test_explanation_names_every_die_and_modifier():
    archers = _band("Archers", ("A", "L-Bo-Fo", "B2"), moved_three_times=True)
    foot = _band("Foot", ("T", "L-Sw-Fo", "E2"))
    result = resolve_fire(FireOrder(firing=archers, target=foot), dice=dice.FixedDice([5]))
    assert result.explain() == [
        "Archers: fire order against Foot",
        "A (B2) fires at T (E2), 6 cm, range 12 cm: D6 5 + attack 2 − 1 (firing at a"
        " single-unit band) − 1 (previously moved 3 times in a row) = 5 vs defence 4: kill",
        "Foot is destroyed",
        "die #1 fire: A at T: 5",
    ]


def test_out_of_dice_is_an_order_error():
    archers = _band("Archers", ("A", "L-Bo-Fo", "B2"))
    foot = _band("Foot", ("T", "L-Sw-Fo", "E2"))
    with pytest.raises(OrderError, match="could not be rolled"):
        resolve_fire(FireOrder(firing=archers, target=foot), dice=dice.FixedDice([]))


def test_calculator_output_is_json():
    code, out, _ = calculate("fight", {
        "band": {"units": [{"code": "H-Sw-Fo", "hex": "C2"}]},
        "target": {"units": [{"code": "H-Sw-Fo", "hex": "D2"}]}, "rolls": [2]})
    assert code == 0
    json.dumps(out)
    assert out["attacks"][0]["attacker"] == "band 1"
