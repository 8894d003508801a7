"""Text level parsing, rendering and lookup (gridsim.levels)."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridsim.errors import LevelError, LevelNotFoundError
from gridsim.levels import (
    ParsedLevel,
    builtin_level_names,
    builtin_root,
    find_level,
    parse_level_text,
    read_level,
    render_level_text,
)
from gridsim.nav import LEGEND_BOOL_KEYS
from gridsim.nav.alphabet import Dist
from gridsim.nav.level import compile_nav_level

FIXTURES = Path(__file__).parents[3] / "shared" / "fixtures"
PIXELWORLD = FIXTURES / "pixelworld"
LEVELS = Path(__file__).parents[2] / "levels"
NAV_FILES = sorted((LEVELS / "nav").glob("*.txt"))
FIXTURE_FILES = sorted(PIXELWORLD.glob("*.txt")) if PIXELWORLD.is_dir() else []
ORIGINAL_MAPS = [
    "room1", "room1_small", "room2_small", "room3_small", "room4_small", "room5_medium",
    "room5_medium_walls",
]

ROOM1_SMALL = "######\n#   0#\n#    #\n#    #\n#S   #\n######\n"

NATIVE = """\
%gridsim 1
; a comment
// another comment
[meta]
family = nav
name = demo
default_symbol = ' '
max_episode_steps = 50

[legend]
' ' = reward=normal(-1, 0.05)
k = reward=5 collectible color=255,215,0
x = terminal=true accessible=false reward=uniform(0,2.5)
[map]
#####
#S k#
#  x#
#####
"""


def error_of(fn, *args, **kwargs) -> LevelError:
    with pytest.raises(LevelError) as info:
        fn(*args, **kwargs)
    return info.value


# --- PixelWorld format -------------------------------------------------------------------------


def test_pixelworld_rows_are_verbatim():
    p = parse_level_text(ROOM1_SMALL)
    assert p.format == "pixelworld"
    assert p.rows == tuple(ROOM1_SMALL.split("\n")[:6])
    assert p.row_lines == (1, 2, 3, 4, 5, 6)
    assert (p.height, p.width) == (6, 6)
    assert p.meta == {} and p.legend == {}


def test_edge_floor_column_is_kept():
    # Spaces at both ends of a row are floor cells; nothing may be stripped.
    p = parse_level_text(" S0 \n    \n")
    assert p.rows == (" S0 ", "    ")
    assert p.width == 4


def test_crlf_reads_like_lf():
    crlf = parse_level_text(ROOM1_SMALL.replace("\n", "\r\n"))
    assert crlf.rows == parse_level_text(ROOM1_SMALL).rows
    assert all("\r" not in r for r in crlf.rows)


def test_blank_lines_around_map_are_dropped_and_lines_counted():
    p = parse_level_text("\n\n" + ROOM1_SMALL + "\n\n\n")
    assert p.rows == parse_level_text(ROOM1_SMALL).rows
    assert p.row_lines == (3, 4, 5, 6, 7, 8)


def test_missing_final_newline_parses():
    assert parse_level_text(ROOM1_SMALL.rstrip("\n")).rows == parse_level_text(ROOM1_SMALL).rows


@pytest.mark.skipif(not FIXTURE_FILES, reason="shared fixtures not present")
def test_room1_repeated_bottom_wall_row_is_kept():
    p = read_level(PIXELWORLD / "room1.txt")
    assert (p.height, p.width) == (9, 11)
    assert p.rows[7] == p.rows[8] == "#" * 11


@pytest.mark.parametrize(
    "path", NAV_FILES + FIXTURE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_every_shipped_and_fixture_map_parses_and_compiles(path):
    p = read_level(path)
    assert p.height >= 3 and all(len(r) == p.width for r in p.rows)
    level = compile_nav_level(p)
    assert len(level.start_cells) == 1 and len(level.goal_cells) == 1


@pytest.mark.skipif(not FIXTURE_FILES, reason="shared fixtures not present")
@pytest.mark.parametrize("name", ORIGINAL_MAPS)
def test_builtin_original_maps_are_unchanged_copies(name):
    shipped = LEVELS / "nav" / f"{name}.txt"
    assert shipped.read_bytes() == (PIXELWORLD / f"{name}.txt").read_bytes()


def test_ragged_shorter_row_raises_with_line_and_column():
    e = error_of(parse_level_text, "#####\n#S0#\n#####")
    assert (e.line, e.col) == (2, 5)
    assert "4" in e.reason and "5" in e.reason


def test_ragged_longer_row_raises_with_line_and_column():
    e = error_of(parse_level_text, "\n####\n#S0#\n####\n#  ##\n####", source="m.txt")
    assert (e.source, e.line, e.col) == ("m.txt", 5, 5)
    assert str(e).startswith("m.txt:5:5: ")


def test_tab_raises_with_its_column():
    e = error_of(parse_level_text, "#####\n#S\t0#\n#####")
    assert (e.line, e.col) == (2, 3)
    assert "tab" in e.reason


@pytest.mark.parametrize("text", ["", "\n\n", "\r\n\r\n"])
def test_empty_text_raises_without_location(text):
    e = error_of(parse_level_text, text, source="empty.txt")
    assert (e.source, e.line, e.col) == ("empty.txt", None, None)
    assert "empty level" in e.reason


def test_unknown_symbol_raises_with_line_and_column():
    e = error_of(compile_nav_level, parse_level_text("\n#####\n#S 0#\n# x #\n#####\n"))
    assert (e.line, e.col) == (4, 3)
    assert "unknown symbol 'x'" in e.reason


def test_no_start_cell_raises_naming_the_source():
    e = error_of(compile_nav_level, parse_level_text("####\n# 0#\n####", source="nostart.txt"))
    assert (e.source, e.line, e.col) == ("nostart.txt", None, None)
    assert "no start cell" in e.reason


# --- native format -----------------------------------------------------------------------------


def test_native_level_parses_meta_legend_and_map():
    p = parse_level_text(NATIVE, source="demo.txt")
    assert p.format == "native"
    assert p.rows == ("#####", "#S k#", "#  x#", "#####")
    assert p.row_lines == (15, 16, 17, 18)
    assert dict(p.meta) == {"family": "nav", "name": "demo", "default_symbol": " ",
                            "max_episode_steps": "50"}
    assert p.meta_lines["name"] == 6
    assert (p.family, p.name) == ("nav", "demo")
    assert dict(p.legend[" "]) == {"reward": Dist("normal", -1, 0.05)}
    assert dict(p.legend["k"]) == {"reward": Dist("const", 5), "collectible": True,
                                   "color": (255, 215, 0)}
    assert dict(p.legend["x"]) == {"terminal": True, "accessible": False,
                                   "reward": Dist("uniform", 0, 2.5)}
    assert p.legend_lines == {" ": 11, "k": 12, "x": 13}


def test_native_map_rows_keep_section_like_text():
    p = parse_level_text("%gridsim 1\n[map]\n[meta]\n; x   \n")
    assert p.rows == ("[meta]", "; x   ")


def test_native_without_meta_takes_name_from_file(tmp_path):
    path = tmp_path / "tiny.txt"
    path.write_text("%gridsim 1\n[map]\n###\n#S#\n###\n")
    p = read_level(path)
    assert (p.name, p.family, p.row_lines) == ("tiny", None, (3, 4, 5))


@pytest.mark.parametrize(
    ("text", "line", "col", "fragment"),
    [
        ("%gridsim 1\n[meta]\ncolour = red\n[map]\n#", 3, 1, "unknown meta key 'colour'"),
        ("%gridsim 1\n[meta]\n  name\n[map]\n#", 3, 3, "key = value"),
        ("%gridsim 1\n[meta]\nname = a\nname = b\n[map]\n#", 4, 1, "duplicate meta key"),
        ("%gridsim 1\n[meta]\nmax_episode_steps = ten\n[map]\n#", 3, 21, "positive integer"),
        ("%gridsim 1\n[meta]\nunknown_symbols = skip\n[map]\n#", 3, 19, "'error' or 'default'"),
        ("%gridsim 1\n[meta]\ndefault_symbol = ab\n[map]\n#", 3, 18, "one character"),
        ("%gridsim 1\nname = x\n[map]\n#", 2, 1, "section header"),
        ("%gridsim 1\n[rules]\n[map]\n#", 2, 1, "unknown section [rules]"),
        ("%gridsim 1\n[meta]\n[meta]\n[map]\n#", 3, 1, "duplicate section [meta]"),
        ("%gridsim 1\n[legend]\nk = reward=lots\n[map]\n#", 3, 12, "reward distribution"),
        ("%gridsim 1\n[legend]\nk = reward=normal(0,-1)\n[map]\n#", 3, 12, "standard deviation"),
        ("%gridsim 1\n[legend]\nk = terminal shiny\n[map]\n#", 3, 14, "unknown property 'shiny'"),
        ("%gridsim 1\n[legend]\nk = terminal=yes\n[map]\n#", 3, 14, "true or false"),
        ("%gridsim 1\n[legend]\nk = color=1,2\n[map]\n#", 3, 11, "r,g,b"),
        ("%gridsim 1\n[legend]\nk = color=0,0,256\n[map]\n#", 3, 11, "r,g,b"),
        ("%gridsim 1\n[legend]\nk = reward\n[map]\n#", 3, 5, "needs a value"),
        ("%gridsim 1\n[legend]\nk = initial initial\n[map]\n#", 3, 13, "duplicate property"),
        ("%gridsim 1\n[legend]\nk terminal\n[map]\n#", 3, 2, "expected '<char> = "),
        ("%gridsim 1\n[legend]\n  = terminal\n[map]\n#", 3, 1, "' '"),
        ("%gridsim 1\n[legend]\nk =\nk = initial\n[map]\n#", 4, 1, "duplicate legend entry"),
        ("\n%gridsim 2\n[map]\n#", 2, 1, "unsupported header"),
        ("%gridsim 1\n[map]\n\n", 2, None, "empty level"),
        ("%gridsim 1\n[map]\n###\n#S\n###", 4, 3, "ragged"),
        ("%gridsim 1\n[map]\n###\n#\tS\n###", 4, 2, "tab"),
    ],
)
def test_native_error_raises_with_line_and_column(text, line, col, fragment):
    e = error_of(parse_level_text, text, source="bad.txt")
    assert (e.source, e.line, e.col) == ("bad.txt", line, col)
    assert fragment in e.reason


def test_native_missing_map_section_raises():
    e = error_of(parse_level_text, "%gridsim 1\n[meta]\nname = x\n")
    assert "missing [map] section" in e.reason


def test_render_of_native_level_round_trips():
    p = parse_level_text(NATIVE)
    q = parse_level_text(render_level_text(p))
    assert q == p
    assert (q.rows, dict(q.meta), {c: dict(v) for c, v in q.legend.items()}) == (
        p.rows, dict(p.meta), {c: dict(v) for c, v in p.legend.items()})


@pytest.mark.parametrize("path", NAV_FILES, ids=lambda p: p.name)
def test_render_of_shipped_level_round_trips(path):
    p = read_level(path)
    q = parse_level_text(render_level_text(p))
    assert q == p and q.format == "native"


def test_parsed_level_is_read_only_and_pickles():
    p = parse_level_text(NATIVE)
    with pytest.raises(TypeError):
        p.meta["name"] = "other"  # type: ignore[index]
    q = pickle.loads(pickle.dumps(p))
    assert q == p and hash(q) == hash(p) and q.row_lines == p.row_lines


# --- hypothesis ----------------------------------------------------------------------------------

map_char = st.characters(blacklist_characters="\n\r\t", blacklist_categories=("Cs",))
line_text = st.text(alphabet=map_char, max_size=12)
finite = st.floats(allow_nan=False, allow_infinity=False)


@st.composite
def dists(draw):
    kind = draw(st.sampled_from(["const", "normal", "abs_normal", "uniform"]))
    a = draw(finite)
    if kind == "const":
        return Dist("const", a)
    if kind == "uniform":
        b = draw(finite)
        return Dist("uniform", min(a, b), max(a, b))
    return Dist(kind, a, draw(st.floats(min_value=0, max_value=1e300)))


@st.composite
def native_levels(draw):
    w = draw(st.integers(1, 8))
    row = st.text(alphabet=map_char, min_size=w, max_size=w)
    rows = draw(st.lists(row, min_size=1, max_size=6))
    text_keys = ("family", "name", "description", "alphabet", "obs_type", "actions")
    free = {k: line_text for k in text_keys}
    values = {
        **free,
        "default_symbol": map_char,
        "max_episode_steps": st.integers(1, 10**6).map(str),
        "view_size": st.integers(1, 99).map(str),
        "unknown_symbols": st.sampled_from(["error", "default"]),
    }
    keys = draw(st.lists(st.sampled_from(sorted(values)), unique=True))
    meta = {k: draw(values[k]) for k in keys}
    prop = {
        "reward": dists(),
        "color": st.tuples(*[st.integers(0, 255)] * 3),
        **{k: st.booleans() for k in LEGEND_BOOL_KEYS},
    }
    legend = {}
    for ch in draw(st.lists(map_char, unique=True, max_size=5)):
        names = draw(st.lists(st.sampled_from(sorted(prop)), unique=True))
        legend[ch] = {k: draw(prop[k]) for k in names}
    return ParsedLevel("<string>", "native", tuple(rows), tuple(range(len(rows))), meta, {}, legend)


@settings(deadline=None)
@given(native_levels())
def test_parse_of_render_equals_level(p):
    q = parse_level_text(render_level_text(p))
    assert q == p
    assert q.rows == p.rows
    assert dict(q.meta) == dict(p.meta)
    assert {c: dict(v) for c, v in q.legend.items()} == {c: dict(v) for c, v in p.legend.items()}


@settings(deadline=None)
@given(
    h=st.integers(3, 8),
    w=st.integers(3, 8),
    data=st.data(),
    foreign=st.characters(blacklist_characters="#S0 \n\r\t\ufeff", blacklist_categories=("Cs",)),
    blank_lines=st.integers(0, 3),
    native=st.booleans(),
)
def test_foreign_character_raises_with_its_line_and_column(h, w, data, foreign, blank_lines,
                                                           native):
    grid = [list(data.draw(st.text(alphabet="# S0", min_size=w, max_size=w))) for _ in range(h)]
    grid[0][0] = "S"
    r, c = data.draw(st.integers(0, h - 1)), data.draw(st.integers(0, w - 1))
    grid[r][c] = foreign
    head = "%gridsim 1\n[meta]\nname = x\n[map]\n" if native else ""
    text = head + "\n" * blank_lines + "\n".join("".join(row) for row in grid) + "\n"
    e = error_of(compile_nav_level, parse_level_text(text))
    assert (e.line, e.col) == (head.count("\n") + blank_lines + r + 1, c + 1)
    assert repr(foreign) in e.reason


# --- lookup --------------------------------------------------------------------------------------


def test_builtin_root_is_the_levels_folder_not_the_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert (builtin_root() / "nav" / "room1_small.txt").is_file()
    assert find_level("nav/room1_small") == builtin_root() / "nav" / "room1_small.txt"


def test_builtin_level_names_lists_every_nav_level():
    names = builtin_level_names("nav")
    assert names == sorted(names)
    assert {f"nav/{n}" for n in ORIGINAL_MAPS + ["four_rooms", "maze32", "open64"]} <= set(names)


def test_level_directory_shadows_builtin(tmp_path):
    (tmp_path / "nav").mkdir()
    (tmp_path / "nav" / "room1_small.txt").write_text("###\n#S#\n###\n")
    assert find_level("nav/room1_small", tmp_path) == tmp_path / "nav" / "room1_small.txt"
    assert read_level("nav/room1_small", tmp_path).rows == ("###", "#S#", "###")
    # Names missing from the directory still fall through to the built-ins.
    assert find_level("nav/room2_small", tmp_path) == builtin_root() / "nav" / "room2_small.txt"


def test_missing_level_lists_every_path_tried(tmp_path):
    with pytest.raises(LevelNotFoundError) as info:
        find_level("nav/nowhere", tmp_path)
    tried = [str(tmp_path / "nav" / "nowhere.txt"), str(builtin_root() / "nav" / "nowhere.txt")]
    assert info.value.tried == tried
    assert all(t in str(info.value) for t in tried)
    assert isinstance(info.value, FileNotFoundError)


def test_path_is_taken_literally_and_txt_name_is_searched_in_the_roots(tmp_path, monkeypatch):
    (tmp_path / "mine.txt").write_text(ROOM1_SMALL)
    monkeypatch.chdir(tmp_path)
    assert find_level("mine.txt", ".") == tmp_path / "mine.txt"
    assert find_level("nav/room1_small.txt") == builtin_root() / "nav" / "room1_small.txt"
    with pytest.raises(LevelNotFoundError):
        find_level("mine.txt")
    assert read_level(tmp_path / "mine.txt").rows == parse_level_text(ROOM1_SMALL).rows
    with pytest.raises(LevelNotFoundError) as info:
        find_level(Path("nav/room1_small"))  # a Path is never searched for
    assert info.value.tried == [str(Path("nav/room1_small"))]
    with pytest.raises(LevelNotFoundError):
        find_level("room1_small.txt")


def test_inline_level_reads_the_rest_of_the_string():
    p = read_level("=###\n#S#\n###")
    assert (p.source, p.rows) == ("<string>", ("###", "#S#", "###"))


def test_read_level_is_cached_until_the_file_changes(tmp_path):
    path = tmp_path / "lvl.txt"
    path.write_text("###\n#S#\n###\n")
    first = read_level(path)
    assert read_level(path) is first
    path.write_text("####\n#S0#\n####\n")
    os.utime(path, ns=(1, 1))  # a different mtime even on coarse clocks
    assert read_level(path).rows == ("####", "#S0#", "####")


# --------------------------------------------------------------------- one lookup per make


def count_lookups(monkeypatch) -> list:
    """Record every resolve_level call (gridsim.make's own and find_level's) as its level argument."""
    import sys

    from gridsim.levels import lookup

    seen: list = []
    original = lookup.resolve_level

    def resolve_level(level, *args, **kwargs):
        seen.append(level)
        return original(level, *args, **kwargs)

    monkeypatch.setattr(lookup, "resolve_level", resolve_level)
    monkeypatch.setattr(sys.modules["gridsim.make"], "resolve_level", resolve_level)
    return seen


@pytest.mark.parametrize("name", ["nav/four_rooms", "nav/room1_small", "kitchen/open-divider_salad"])
def test_make_resolves_a_text_level_once(monkeypatch, name):
    import gridsim

    seen = count_lookups(monkeypatch)
    envs = gridsim.make(name, 2)
    assert seen == [name]
    assert envs.read_property("level.name") == name and envs.read_property("level.path") == f"builtin:{name}"
    envs.close()


def test_make_resolves_a_module_level_and_its_map_once_each(monkeypatch):
    import gridsim

    seen = count_lookups(monkeypatch)
    gridsim.make("examples/lava", 2).close()
    # The module by its name, then the map file it names by its path.
    assert seen[0] == "examples/lava" and len(seen) == 2 and isinstance(seen[1], Path)


def test_an_env_made_from_a_resolved_source_pickles_and_reads_the_same_file():
    import gridsim

    envs = gridsim.make("nav/four_rooms", 3)
    envs.reset(seed=4)
    clone = pickle.loads(pickle.dumps(envs))
    assert clone.level.rows == envs.level.rows and clone.max_episode_steps == envs.max_episode_steps == 200
    envs.close()
    clone.close()
