"""A family declares its levels' [meta] keys and [legend] properties; the text-map format knows none."""

from __future__ import annotations

import ast
import dataclasses
import inspect

import pytest

import gridsim.levels.textmap as textmap
from gridsim.engine.grammar import LegendProperty, LevelGrammar
from gridsim.errors import InvalidArgumentError, LevelError
from gridsim.families import FAMILIES
from gridsim.levels import parse_level_text, read_level, render_level_text
from gridsim.make import load_level
from gridsim.nav import LEGEND_BOOL_KEYS, LEVEL_GRAMMAR, META_KEYS


def _speed(value: str) -> None:
    if not value.isdecimal() or not 0 < int(value) <= 9:
        raise InvalidArgumentError(f"speed is a digit 1..9, got {value!r}")


def _weight(value: str) -> int:
    if not value.isdecimal():
        raise InvalidArgumentError(f"weight is a whole number, got {value!r}")
    return int(value)


def _slippery(value: str) -> bool:
    if value not in ("yes", "no"):
        raise InvalidArgumentError(f"slippery is yes or no, got {value!r}")
    return value == "yes"


# A family of no gridsim folder: its own meta key and two legend properties, nothing else.
TOY = LevelGrammar(
    meta={"speed": _speed, "motto": None},
    legend={
        "weight": LegendProperty(_weight, str),
        "slippery": LegendProperty(_slippery, lambda v: "yes" if v else "no", flag=True),
    },
)

TOY_LEVEL = """\
%gridsim 1
[legend]
i = slippery weight=3
m = slippery=no
[meta]
family = toy
name = rink
speed = 4
motto = ' keep moving '
[map]
#####
#Sim#
#####
"""


@pytest.fixture
def toy_family(monkeypatch):
    """A ``toy`` row in the family table, borrowing navigation's env classes."""
    row = dataclasses.replace(FAMILIES["nav"], name="toy", level_grammar=TOY,
                              level_defaults=lambda meta: {"max_steps": meta.get("speed", "1")})
    monkeypatch.setitem(FAMILIES, "toy", row)
    return row


def error_of(fn, *args, **kwargs) -> LevelError:
    with pytest.raises(LevelError) as info:
        fn(*args, **kwargs)
    return info.value


def test_a_toy_grammar_types_its_own_keys_and_properties():
    p = parse_level_text(TOY_LEVEL, "rink.txt", grammar=TOY)
    assert dict(p.meta) == {"family": "toy", "name": "rink", "speed": "4", "motto": " keep moving "}
    assert p.meta_lines == {"family": 6, "name": 7, "speed": 8, "motto": 9}
    assert dict(p.legend["i"]) == {"slippery": True, "weight": 3}
    assert dict(p.legend["m"]) == {"slippery": False}
    text = render_level_text(p, TOY)
    assert "i = slippery weight=3" in text and "m = slippery=no" in text
    assert parse_level_text(text, grammar=TOY) == p


@pytest.mark.parametrize(
    ("edit", "line", "col", "fragment"),
    [
        (("speed = 4", "alphabet = noisy"), 8, 1, "unknown meta key 'alphabet'; allowed: family, name, description, "
                                                   "speed, motto"),
        (("speed = 4", "speed =  12"), 8, 10, "speed is a digit 1..9, got '12'"),
        (("weight=3", "reward=-1"), 3, 21, "'i': unknown property 'reward'; use weight=, slippery"),
        (("weight=3", "weight=heavy"), 3, 21, "'i': weight is a whole number, got 'heavy'"),
        (("weight=3", "weight"), 3, 14, "'i': weight needs a value (weight=...)"),
        (("slippery=no", "slippery=maybe"), 4, 14, "'m': slippery is yes or no, got 'maybe'"),
        (("slippery=no", "terminal"), 4, 5, "unknown property 'terminal'"),
    ],
)
def test_a_key_the_family_does_not_declare_is_refused_with_line_and_column(toy_family, edit, line, col, fragment):
    text = TOY_LEVEL.replace(*edit)
    for parse in (lambda: parse_level_text(text, "rink.txt"), lambda: parse_level_text(text, "rink.txt", TOY)):
        e = error_of(parse)
        assert (e.source, e.line, e.col) == ("rink.txt", line, col)
        assert fragment in e.reason


def test_the_family_row_decides_the_grammar_even_when_legend_comes_first(toy_family):
    p = parse_level_text(TOY_LEVEL)  # [legend] precedes [meta] family = toy
    assert dict(p.legend["i"]) == {"slippery": True, "weight": 3}
    assert parse_level_text(render_level_text(p)) == p
    # Navigation's keys mean nothing to the toy family, and the toy's nothing to navigation.
    assert "alphabet" in META_KEYS
    e = error_of(parse_level_text, TOY_LEVEL.replace("family = toy", "family = nav"))
    assert (e.line, e.col, e.reason) == (3, 5, "'i': unknown property 'slippery'; use reward=, color=, terminal, "
                                               "accessible, stochastic, initial, collectible")


def test_a_toy_level_file_loads_through_the_level_loader(toy_family, tmp_path):
    path = tmp_path / "rink.txt"
    path.write_text(TOY_LEVEL)
    assert read_level(path).legend["i"]["weight"] == 3
    level, src = load_level(path)
    assert (level.family, level.defaults, src.kind) == ("toy", {"max_steps": "4"}, "text")


def test_a_family_without_a_grammar_and_a_level_naming_none_read_with_the_default():
    assert FAMILIES["nav"].level_grammar is LEVEL_GRAMMAR
    assert FAMILIES["kitchen"].level_grammar is None
    assert textmap.level_grammar(None) is textmap.level_grammar("kitchen") is LEVEL_GRAMMAR
    assert textmap.level_grammar("no such family") is LEVEL_GRAMMAR
    p = parse_level_text("%gridsim 1\n[meta]\nfamily = kitchen\nalphabet = noisy\n[map]\n#")
    assert p.meta["alphabet"] == "noisy"


def test_the_common_keys_alone():
    common = LevelGrammar()
    p = parse_level_text("%gridsim 1\n[meta]\nfamily = x\nname = n\ndescription = d\n[map]\n#", grammar=common)
    assert dict(p.meta) == {"family": "x", "name": "n", "description": "d"}
    e = error_of(parse_level_text, "%gridsim 1\n[meta]\n max_episode_steps = 5\n[map]\n#", grammar=common)
    assert (e.line, e.col, e.reason) == (3, 2, "unknown meta key 'max_episode_steps'; allowed: family, name, "
                                               "description")
    e = error_of(parse_level_text, "%gridsim 1\n[legend]\nk = terminal\n[map]\n#", grammar=common)
    assert (e.line, e.col) == (3, 5) and "declares no legend properties" in e.reason
    e = error_of(parse_level_text, "%gridsim 1\n[legend]\nk terminal\n[map]\n#", grammar=common)
    assert (e.line, e.col, e.reason) == (3, 2, "expected '<char> = <properties>'")


def test_navigation_declares_the_keys_the_format_used_to_hard_code():
    assert META_KEYS == ("family", "name", "description", "alphabet", "default_symbol", "max_episode_steps",
                         "obs_type", "actions", "view_size", "unknown_symbols")
    assert tuple(LEVEL_GRAMMAR.legend) == ("reward", "color", *LEGEND_BOOL_KEYS)
    assert all(LEVEL_GRAMMAR.legend[k].flag for k in LEGEND_BOOL_KEYS)
    e = error_of(parse_level_text, "%gridsim 1\n[legend]\nk terminal\n[map]\n#")
    assert e.reason == "expected '<char> = <properties>', e.g. \"S = initial reward=-1\""


def test_the_format_module_names_no_family_key_and_no_reward_type():
    tree = ast.parse(inspect.getsource(textmap))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not {m for m in imported if m and (m.startswith("gridsim.nav") or m == "gridsim.engine.rng")}
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    words = " ".join(n.value for n in ast.walk(tree)
                     if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings)
    for key in (*META_KEYS[3:], *LEVEL_GRAMMAR.legend):
        assert key not in words
