"""gridsim.evaluate and `gridsim eval`: one episode per seed, equal to a single env replaying it."""

from __future__ import annotations

import warnings
import zlib
from collections.abc import Mapping

import gymnasium as gym
import numpy as np
import pytest
from engine.family_cases import CASES, FAMILY_IDS, batch_of_one, thread_min_units

import gridsim
from gridsim.cli import main, parse_seeds
from gridsim.levels.lookup import builtin_root
from gridsim.tools.policies import RandomPolicy
from gridsim.tools.results import SWEEP_COLUMNS, EvalResult

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SEEDS = [11, 3, 3, 0, 42, 7, 11]  # any order, with duplicates

NAV_ID = FAMILY_IDS["nav"][0]


def _actions_from_hash(h: np.ndarray, space) -> np.ndarray:
    """Actions of ``space`` from one uint64 hash per row."""
    if isinstance(space, gym.spaces.Discrete):
        return (h % np.uint64(space.n)).astype(np.int64) + int(space.start)
    nvec = space.nvec.astype(np.uint64)
    return np.stack([((h >> np.uint64(8 * j)) % n).astype(np.int64) for j, n in enumerate(nvec)], axis=1)


def _obs_hash(obs) -> np.ndarray:
    """A hash of each row's observation bytes (uint64, wrapping); of a dict, its parts' in key order."""
    if isinstance(obs, Mapping):
        h = np.zeros(len(obs[next(iter(obs))]), np.uint64)
        for key in sorted(obs):
            part = obs[key]
            if isinstance(part, tuple):  # strings, each alone: a row's hash never depends on the others
                part = np.array([zlib.crc32(str(x).encode()) for x in part], np.uint64)
            h = (h * np.uint64(0x100000001B3)) ^ _obs_hash(np.asarray(part))
        return h
    b = np.ascontiguousarray(obs).reshape(len(obs), -1).view(np.uint8).astype(np.uint64)
    h = (b * (np.arange(1, b.shape[1] + 1, dtype=np.uint64) * np.uint64(2654435761))).sum(axis=1)
    return h ^ (h >> np.uint64(17))


def obs_hash_policy(space):
    """Deterministic, not constant: a function of the observation bytes only."""
    def policy(obs):
        return _actions_from_hash(_obs_hash(obs), space)
    return policy


def hash_policy(space):
    """A function of the observation bytes and the episode's step (from infos)."""
    def policy(obs, infos):
        h = _obs_hash(obs) + np.asarray(infos["episode_step"]).astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        return _actions_from_hash(h ^ (h >> np.uint64(29)), space)
    return policy


def single_episode(env_id: str, seed: int, policy, **kwargs) -> tuple[float, int, bool]:
    """(return, length, terminated) of the episode ``gym.make(env_id)`` plays after ``reset(seed=seed)``."""
    env = gym.make(env_id, **kwargs)
    obs, info = env.reset(seed=seed)
    total, t = 0.0, 0
    takes_infos = not getattr(policy, "__code__", None) or policy.__code__.co_argcount == 2
    while True:
        batch = batch_of_one(obs)
        if takes_infos:
            infos = {k: np.asarray(v)[None] for k, v in info.items()}
            infos.update(episode_seed=np.array([seed], np.uint64), episode_step=np.array([t]))
            action = policy(batch, infos)[0]
        else:
            action = policy(batch)[0]
        obs, reward, terminated, truncated, info = env.step(action)
        total += float(reward)
        t += 1
        if terminated or truncated:
            env.close()
            return total, t, bool(terminated)


def policy_for(kind: str, space):
    if kind == "obs":
        return obs_hash_policy(space)
    if kind == "infos":
        return hash_policy(space)
    return RandomPolicy(space, seed=5)


def reference(env_id: str, seeds, policy, **kwargs) -> dict[int, tuple]:
    return {s: single_episode(env_id, s, policy, **kwargs) for s in sorted(set(seeds))}


def assert_matches(result: EvalResult, ref: dict[int, tuple], seeds, msg=""):
    assert result["seed"].tolist() == list(seeds), msg
    for i, s in enumerate(seeds):
        ret, length, success = ref[s]
        assert result.returns[i] == ret, f"{msg} seed {s}: return {result.returns[i]} != {ret}"
        assert result.lengths[i] == length, f"{msg} seed {s}: length {result.lengths[i]} != {length}"
        assert result.successes[i] == success, f"{msg} seed {s}: success {result.successes[i]} != {success}"


# --------------------------------------------------------------------------- exactness


@pytest.mark.parametrize("kind", ["obs", "infos", "random"])
@pytest.mark.parametrize(("family", "env_id"), CASES)
def test_evaluate_equals_single_env_episodes(family, env_id, kind):
    space = gym.make(env_id).action_space
    policy = policy_for(kind, space)
    ref = reference(env_id, SEEDS, policy)
    for num_envs in (1, 3, 64):
        result = gridsim.evaluate(policy, env_id, SEEDS, num_envs=num_envs)
        assert result.num_envs == num_envs
        assert_matches(result, ref, SEEDS, f"{env_id} num_envs={num_envs}:")
    one = gridsim.evaluate(policy, env_id, [SEEDS[4]])
    assert_matches(one, ref, [SEEDS[4]], f"{env_id} one seed:")


@pytest.mark.parametrize("env_id", ["gridsim/PixelWorld-room1_small-v0", "gridsim/Gridroboman-TouchRed-v0"])
def test_evaluate_equals_single_env_on_varied_episodes(env_id):
    # Levels where random episodes differ in length, return and success from seed to seed.
    seeds = list(range(30, 0, -1)) + [5, 5]
    policy = RandomPolicy(gym.make(env_id).action_space, seed=1)
    ref = reference(env_id, seeds, policy)
    assert len({r[1] for r in ref.values()}) > 5
    assert len({r[2] for r in ref.values()}) == 2
    for num_envs in (1, 7, 64):
        assert_matches(gridsim.evaluate(policy, env_id, seeds, num_envs=num_envs), ref, seeds, f"{num_envs}:")


def test_evaluate_ten_thousand_seeds_on_nav():
    seeds = np.arange(10_000)
    result = gridsim.evaluate("random", "gridsim/PixelWorld-room1_small-v0", seeds)
    assert len(result) == 10_000 and result.num_envs == 1024
    np.testing.assert_array_equal(result["seed"], seeds)
    # Another batch size and a shuffled order give every seed the same episode.
    order = np.random.default_rng(0).permutation(10_000)
    other = gridsim.evaluate("random", "gridsim/PixelWorld-room1_small-v0", seeds[order], num_envs=97)
    for col in ("return", "length", "success"):
        np.testing.assert_array_equal(other[col], result[col][order], err_msg=col)
    policy = RandomPolicy(gym.make("gridsim/PixelWorld-room1_small-v0").action_space)
    ref = reference("gridsim/PixelWorld-room1_small-v0", [0, 4321, 9999], policy)
    for s in ref:
        assert (result.returns[s], result.lengths[s], result.successes[s]) == ref[s]


def test_evaluate_level_names():
    result = gridsim.evaluate("random", "nav/four_rooms", range(5), num_envs=2)
    ref = reference("gridsim/Nav-four_rooms-v0", range(5), RandomPolicy(gym.spaces.Discrete(4)))
    assert_matches(result, ref, list(range(5)))
    result = gridsim.evaluate("random", "roboman:LiftRed", [3, 1])
    ref = reference("gridsim/Gridroboman-LiftRed-v0", [3, 1], RandomPolicy(gym.spaces.Discrete(7)))
    assert_matches(result, ref, [3, 1])


@pytest.mark.skipif(not gridsim.threads_available(), reason="built without threads")
@pytest.mark.parametrize("env_id", [pytest.param(ids[0], id=name) for name, ids in FAMILY_IDS.items()])
def test_evaluate_threads_give_identical_results(env_id):
    # Batches of every family's thread_min_units run on threads; the extra seeds refill rows.
    num_envs = thread_min_units(env_id)
    seeds = range(num_envs + num_envs // 4)
    one = gridsim.evaluate("random", env_id, seeds, num_envs=num_envs)
    two = gridsim.evaluate("random", env_id, seeds, num_envs=num_envs, num_threads=2)
    for col in one.columns():
        np.testing.assert_array_equal(one[col], two[col], err_msg=col)


# --------------------------------------------------------------------------- kitchens


def kitchen_rows_episode(level: str, seed: int, policy, num_agents: int = 2) -> tuple:
    """One kitchen of the agent-rows view (A rows), stepped to the end of its episode."""
    envs = gridsim.make(level, num_agents, agent_rows=True, num_agents=num_agents, max_episode_steps=100,
                        autoreset_mode="Disabled")
    obs, infos = envs.reset(seed=[seed] * num_agents)
    total, t = 0.0, 0
    while True:
        infos = {**infos, "episode_seed": np.full(num_agents, seed, np.uint64), "episode_step": np.full(num_agents, t)}
        obs, rew, term, trunc, infos = envs.step(policy(obs, infos))
        total += float(rew[0])
        t += 1
        if term[0] or trunc[0]:
            envs.close()
            return total, t, bool(term[0])


def test_evaluate_kitchen_agent_rows():
    level = "kitchen/open-divider_salad"
    policy = hash_policy(gym.spaces.Discrete(5))
    ref = {s: kitchen_rows_episode(level, s, policy) for s in set(SEEDS)}
    for num_envs in (2, 6, 64):
        result = gridsim.evaluate(policy, level, SEEDS, num_envs=num_envs,
                                  env_kwargs={"agent_rows": True, "max_episode_steps": 100})
        assert_matches(result, ref, SEEDS, f"num_envs={num_envs}:")
        assert result.extras["dishes_delivered"].shape == (len(SEEDS),)


def test_evaluate_kitchen_success_and_dishes():
    from kitchen_solver import solve

    level = "kitchen/open-divider_salad"
    plan = np.array(solve(level, 2), np.int64)  # solves every seed: the kitchen starts the same

    def planner(obs, infos):
        # Even seeds follow the plan, odd seeds stand still.
        t = np.minimum(infos["episode_step"], len(plan) - 1)
        actions = plan[t]
        actions[infos["episode_seed"] % 2 == 1] = 0
        return actions

    seeds = [4, 1, 2, 9, 0]
    result = gridsim.evaluate(planner, level, seeds, num_envs=2, env_kwargs={"max_episode_steps": 100})
    np.testing.assert_array_equal(result.successes, [True, False, True, False, True])
    assert (result.lengths[result.successes] == len(plan)).all()
    assert (result.lengths[~result.successes] == 100).all()
    # The extra statistic is the one infos["episode_stats"] reports for the same episode.
    envs = gridsim.make(level, 1, max_episode_steps=100)
    envs.reset(seed=[4])
    for a in plan:
        *_, infos = envs.step(a[None])
    assert result.extras["dishes_delivered"][0] == infos["episode_stats"]["dishes_delivered"][0] > 0
    assert result.returns[0] == infos["episode_stats"]["return"][0]
    assert result.extras["dishes_delivered"][1] == 0


# --------------------------------------------------------------------------- env argument


@pytest.mark.parametrize(("name", "env_id"), [("kitchen/open-divider_salad", "gridsim/Kitchen-open-divider_salad-v0"),
                                              ("nav/room1_small", "gridsim/Nav-room1_small-v0")])
def test_a_built_in_level_by_name_has_the_step_limit_of_its_id(name, env_id, tmp_path):
    # Neither level has a step limit of its own; their registered ids have 100 steps.
    by_name = gridsim.evaluate("random", name, range(6))
    by_id = gridsim.evaluate("random", env_id, range(6))
    np.testing.assert_array_equal(by_name.lengths, by_id.lengths)
    np.testing.assert_array_equal(by_name.returns, by_id.returns)
    assert by_name.lengths.max() <= 100 and by_name.env == name
    # A level directory may hold another level of that name, whose limit is its own: none here.
    (tmp_path / name).parent.mkdir()
    (tmp_path / f"{name}.txt").write_text((builtin_root() / f"{name}.txt").read_text())
    with pytest.raises(gridsim.InvalidArgumentError, match="no step limit"):
        gridsim.evaluate("random", name, range(2), env_kwargs={"level_directory": str(tmp_path)})


def test_evaluate_existing_env_is_reset_and_left_open():
    envs = gym.make_vec(NAV_ID, num_envs=4, vectorization_mode="vector_entry_point")
    policy = hash_policy(envs.single_action_space)
    result = gridsim.evaluate(policy, envs, SEEDS)
    assert_matches(result, reference(NAV_ID, SEEDS, policy), SEEDS)
    assert not envs.unwrapped.closed
    envs.step(np.zeros(4, np.int64))  # still usable
    with pytest.raises(ValueError, match="num_envs"):
        gridsim.evaluate(policy, envs, SEEDS, num_envs=8)
    with pytest.raises(ValueError, match="env_kwargs"):
        gridsim.evaluate(policy, envs, SEEDS, env_kwargs={"max_episode_steps": 5})
    envs.close()


@pytest.mark.parametrize("mode", ["SameStep", "NextStep", "Disabled"])
def test_evaluate_existing_env_in_any_autoreset_mode(mode):
    envs = gridsim.make("roboman:LiftRed", 3, autoreset_mode=mode)
    result = gridsim.evaluate("random", envs, SEEDS)
    ref = reference("gridsim/Gridroboman-LiftRed-v0", SEEDS, RandomPolicy(gym.spaces.Discrete(7)))
    assert_matches(result, ref, SEEDS)
    envs.close()


def test_evaluate_env_errors():
    with pytest.raises(TypeError, match="gridsim id"):
        gridsim.evaluate("random", "CartPole-v1", [0])
    with pytest.raises(TypeError, match="vector env"):
        gridsim.evaluate("random", gym.make(NAV_ID), [0])
    with pytest.raises(ValueError, match="no step limit"):
        gridsim.evaluate("random", gridsim.make("kitchen/open-divider_salad", 1), [0])
    with pytest.raises(ValueError, match="env_kwargs must not set"):
        gridsim.evaluate("random", NAV_ID, [0], env_kwargs={"autoreset_mode": "NextStep"})


# --------------------------------------------------------------------------- seeds and policies


def test_evaluate_seed_errors():
    with pytest.raises(ValueError, match="empty"):
        gridsim.evaluate("random", NAV_ID, [])
    with pytest.raises(ValueError, match="negative"):
        gridsim.evaluate("random", NAV_ID, [3, -1])
    with pytest.raises(ValueError, match="negative"):
        gridsim.evaluate("random", NAV_ID, np.array([0, -2]))
    with pytest.raises(TypeError, match="seeds"):
        gridsim.evaluate("random", NAV_ID, 5)
    with pytest.raises(TypeError, match=r"seeds\[1\]"):
        gridsim.evaluate("random", NAV_ID, [1, 2.5])


def wrong_shape(obs):
    return np.zeros((len(obs), 2), np.int64)


def float_actions(obs):
    return np.zeros(len(obs), np.float64)


def out_of_range(obs):
    return np.full(len(obs), 4, np.int64)


@pytest.mark.parametrize(("policy", "what"), [
    (wrong_shape, "shape"), (float_actions, "integer dtype"), (out_of_range, "out of range"),
])
def test_evaluate_bad_policy_output_names_the_policy(policy, what):
    with pytest.raises(gridsim.PolicyError, match=what) as info:
        gridsim.evaluate(policy, NAV_ID, range(5), num_envs=3)
    assert policy.__name__ in str(info.value)
    assert isinstance(info.value, gridsim.InvalidActionError)


def test_evaluate_bad_policy_object():
    with pytest.raises(TypeError, match="callable"):
        gridsim.evaluate(42, NAV_ID, [0])
    with pytest.raises(ValueError, match="'random'"):
        gridsim.evaluate("greedy", NAV_ID, [0])


def test_evaluate_passes_infos_by_signature():
    seen = {}

    def keyword(obs, *, infos):
        seen["keyword"] = sorted(infos)
        return np.zeros(len(obs), np.int64)

    def positional(o, i):
        seen["positional"] = sorted(i)
        return np.zeros(len(o), np.int64)

    def obs_only(obs, scale=2):
        seen["obs_only"] = scale
        return np.zeros(len(obs), np.int64)

    for fn in (keyword, positional, obs_only):
        gridsim.evaluate(fn, "roboman:LiftRed", [0], num_envs=2)
    assert seen["keyword"] == seen["positional"] == ["_action_mask", "action_mask", "episode_seed", "episode_step"]
    assert seen["obs_only"] == 2


def test_evaluate_gives_a_read_only_batch():
    def writes(obs):
        obs[:] = 0
        return np.zeros(len(obs), np.int64)

    with pytest.raises(ValueError, match="read-only"):
        gridsim.evaluate(writes, NAV_ID, [0])


def test_random_policy_respects_action_masks():
    policy = RandomPolicy(gym.spaces.Discrete(7))
    mask = np.ones((500, 7), np.int8)
    mask[:, [2, 5]] = 0
    mask[-1] = 1  # everything masked: uniform over all
    infos = {"action_mask": mask, "episode_seed": np.arange(500, dtype=np.uint64), "episode_step": np.zeros(500)}
    a = policy(np.zeros((500, 1)), infos)
    assert set(a[:-1].tolist()) == {2, 5}
    assert 0 <= a[-1] < 7
    md = RandomPolicy(gym.spaces.MultiDiscrete([5, 3]))
    b = md(np.zeros((500, 1)), infos)
    assert b.shape == (500, 2) and set(b[:, 0].tolist()) == set(range(5)) and set(b[:, 1].tolist()) == set(range(3))


def test_evaluate_progress_bar_runs():
    result = gridsim.evaluate("random", NAV_ID, range(10), progress=True)
    assert len(result) == 10


# --------------------------------------------------------------------------- the result


def known_result() -> EvalResult:
    return EvalResult(seeds=np.array([4, 2, 9]), returns=np.array([1.5, -2.0, 0.25]), lengths=np.array([10, 3, 7]),
                      successes=np.array([True, False, True]), extras={"dishes": np.array([2, 0, 1], np.int32)},
                      env="x", policy="p")


def test_summary_against_numpy():
    r = known_result()
    s = r.summary()
    assert s["episodes"] == 3 == len(r)
    for name, values in (("return", r.returns), ("length", r.lengths), ("success", r.successes.astype(float)),
                         ("dishes", r.extras["dishes"])):
        std = np.std(values, ddof=1)
        assert s[name]["mean"] == pytest.approx(np.mean(values))
        assert s[name]["std"] == pytest.approx(std)
        assert s[name]["ci95"] == pytest.approx(1.96 * std / np.sqrt(3))
    one = EvalResult(np.array([1]), np.array([2.0]), np.array([4]), np.array([True])).summary()
    assert one["return"] == {"mean": 2.0, "std": 0.0, "ci95": 0.0}
    assert "episodes=3" in repr(r) and "return=" in repr(r)


def test_to_csv_is_deterministic(tmp_path):
    r = known_result()
    r.to_csv(tmp_path / "a.csv")
    expected = "seed,return,length,success,dishes\n4,1.5,10,1,2\n2,-2.0,3,0,0\n9,0.25,7,1,1\n"
    assert (tmp_path / "a.csv").read_bytes() == expected.encode()
    paths = []
    for name in ("b.csv", "c.csv"):
        result = gridsim.evaluate("random", "roboman:LiftRed", [8, 3, 8, 1], num_envs=3 if name == "b.csv" else 1)
        result.to_csv(tmp_path / name)
        paths.append((tmp_path / name).read_bytes())
    assert paths[0] == paths[1]
    assert paths[0].startswith(b"seed,return,length,success\n8,")


def test_result_columns():
    r = known_result()
    assert list(r.columns()) == ["seed", "return", "length", "success", "dishes"]
    with pytest.raises(KeyError, match="columns"):
        r["nope"]


# --------------------------------------------------------------------------- CLI


def test_cli_eval_writes_one_row_per_seed(tmp_path, capsys):
    out = tmp_path / "results.csv"
    assert main(["eval", NAV_ID, "--policy", "random", "--seeds", "0:50", "--out", str(out), "--no-progress"]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "seed,return,length,success"
    assert len(lines) == 51
    assert [int(line.split(",")[0]) for line in lines[1:]] == list(range(50))
    text = capsys.readouterr().out
    for word in ("return", "success rate", "length", "episodes", "seconds", "episodes/s"):
        assert word in text
    # The CLI's random policy is the library's.
    result = gridsim.evaluate("random", NAV_ID, range(50))
    assert [line.split(",")[1] for line in lines[1:]] == [repr(float(v)) for v in result.returns]


def test_cli_eval_module_policy(tmp_path, monkeypatch, capsys):
    (tmp_path / "my_policy.py").write_text(
        "import numpy as np\n"
        "def act(obs):\n    return np.zeros(len(obs), np.int64)\n"
        "def make():\n    return act\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    for spec in ("my_policy:act", "my_policy:make()"):
        assert main(["eval", NAV_ID, "--policy", spec, "--seeds", "1,2,3", "--num-envs", "2"]) == 0
        assert "my_policy.act" in capsys.readouterr().out
    assert main(["eval", NAV_ID, "--policy", "nonsense", "--seeds", "0:3"]) == 2
    assert "module:attr" in capsys.readouterr().err


def test_cli_eval_several_ids_and_policies_print_one_table(tmp_path, monkeypatch, capsys):
    (tmp_path / "zero_policy.py").write_text(
        "import numpy as np\ndef act(obs):\n    return np.zeros(len(obs), np.int64)\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "table.csv"
    envs = [NAV_ID, "nav/four_rooms"]
    assert main(["eval", *envs, "--policy", "random", "--policy", "zero_policy:act", "--seeds", "0:30",
                 "--out", str(out), "--no-progress"]) == 0
    assert "4 evaluations of 30 episodes" in capsys.readouterr().out
    lines = out.read_text().splitlines()
    assert lines[0] == ",".join(SWEEP_COLUMNS)
    rows = [line.split(",") for line in lines[1:]]
    assert [(r[0], r[1]) for r in rows] == [(p, e) for p in ("random", "zero_policy:act") for e in envs]
    for row in rows:
        policy = "random" if row[0] == "random" else (lambda obs: np.zeros(len(obs), np.int64))
        s = gridsim.evaluate(policy, row[1], range(30)).summary()
        assert row[2:] == ["30", repr(s["return"]["mean"]), repr(s["return"]["std"]), repr(s["return"]["ci95"]),
                           repr(s["success"]["mean"]), repr(s["success"]["std"]), repr(s["success"]["ci95"])]


def test_sweep_policies_need_distinct_names():
    from gridsim.tools.evaluate import sweep_items

    named, envs = sweep_items(["random", RandomPolicy(gym.spaces.Discrete(4))], "nav/four_rooms")
    assert [n for n, _ in named] == ["random", "RandomPolicy(Discrete(4), seed=0)"] and envs == ["nav/four_rooms"]
    with pytest.raises(ValueError, match="distinct names"):
        sweep_items(["random", "random"], [NAV_ID])
    with pytest.raises(ValueError, match="at least one"):
        sweep_items({}, [NAV_ID])


def test_parse_seeds():
    assert parse_seeds("0:5") == [0, 1, 2, 3, 4]
    assert parse_seeds("10:20:5") == [10, 15]
    assert parse_seeds("7,3,7") == [7, 3, 7]
    assert parse_seeds("4") == [4]
    for bad in ("", "a:b", "1:2:3:4", "0:10:0", "5:0", "-1,2"):
        with pytest.raises(ValueError):
            parse_seeds(bad)


# --------------------------------------------------------------------------- torch


def test_evaluate_torch_module(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.Tanh(), torch.nn.Linear(16, 4))
    weights = [p.detach().numpy().astype(np.float64) for p in net.parameters()]

    def numpy_net(obs):
        h = np.tanh(obs.astype(np.float64) @ weights[0].T + weights[1])
        return np.argmax(h @ weights[2].T + weights[3], axis=1)

    seeds = list(range(12))
    result = gridsim.evaluate(net, NAV_ID, seeds, num_envs=5)
    expected = gridsim.evaluate(numpy_net, NAV_ID, seeds, num_envs=5)
    np.testing.assert_array_equal(result.returns, expected.returns)
    np.testing.assert_array_equal(result.lengths, expected.lengths)
    # Kitchens' MultiDiscrete actions: logits split by nvec, each part argmaxed.
    kitchen = "gridsim/Kitchen-open-divider_salad-v0"
    knet = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(7 * 7 * 22, 10))
    assert len(gridsim.evaluate(knet, kitchen, [0, 1], num_envs=2)) == 2
    # A Dict observation reaches the module as a dict of tensors (its strings as they are).
    image_net = torch.nn.Linear(7 * 7 * 3, 7)

    class DictNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.net = image_net

        def forward(self, obs):
            assert isinstance(obs["direction"], torch.Tensor) and isinstance(obs["mission"], tuple)
            return self.net(obs["image"].flatten(1))

    minigrid = "gridsim/MiniGrid-DoorKey-5x5-v0"
    result = gridsim.evaluate(DictNet(), minigrid, [0, 1, 2], num_envs=2)
    alone = gridsim.evaluate(torch.nn.Sequential(torch.nn.Flatten(), image_net), minigrid, [0, 1, 2], num_envs=2,
                             env_kwargs={"obs_type": "image"})
    np.testing.assert_array_equal(result.lengths, alone.lengths)
    # Checkpoints: a whole module (unpickled, so trusted explicitly) and a TorchScript file.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.save(net, tmp_path / "net.pt")
        torch.jit.save(torch.jit.script(net), tmp_path / "net_ts.pt")
    monkeypatch.setenv("GRIDSIM_TRUST_PICKLE", "1")
    for name, trust in (("net.pt", ["--trust-pickle"]), ("net_ts.pt", [])):
        out = tmp_path / f"{name}.csv"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            code = main(["eval", NAV_ID, "--policy", str(tmp_path / name), "--seeds", "0:12", "--out", str(out),
                         *trust])
        assert code == 0
        returns = [float(line.split(",")[1]) for line in out.read_text().splitlines()[1:]]
        assert returns == expected.returns.tolist()


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"seeds": []}, gridsim.InvalidArgumentError, "empty"),
    ({"seeds": [1, -2]}, gridsim.InvalidArgumentError, "negative"),
    ({"seeds": 5}, gridsim.ArgumentTypeError, "sequence of ints"),
    ({"seeds": [1, 2.5]}, gridsim.ArgumentTypeError, r"seeds\[1\]"),
    ({"num_envs": 0}, gridsim.InvalidArgumentError, "num_envs"),
    ({"num_envs": 2.0}, gridsim.InvalidArgumentError, "num_envs"),
    ({"env": 3}, gridsim.ArgumentTypeError, "gridsim id, a level name"),
    ({"env": "CartPole-v1"}, gridsim.ArgumentTypeError, "not a gridsim id"),
    ({"env_kwargs": {"num_envs": 4}}, gridsim.InvalidArgumentError, "must not set"),
    ({"env": "kitchen/open-divider_salad", "env_kwargs": {"level_directory": str(builtin_root())}},
     gridsim.InvalidArgumentError, "--max-episode-steps"),
    ({"policy": "greedy"}, gridsim.InvalidArgumentError, "'random'"),
    ({"policy": 3}, gridsim.ArgumentTypeError, "callable"),
], ids=["no-seeds", "negative-seed", "int-seeds", "float-seed", "zero-envs", "float-envs", "int-env", "other-id",
        "own-kwarg", "no-step-limit", "unknown-policy-name", "uncallable-policy"])
def test_evaluate_refuses_bad_input_with_gridsim_errors(kwargs, error, match):
    args = {"policy": "random", "env": NAV_ID, "seeds": [0, 1], **kwargs}
    policy, env, seeds = args.pop("policy"), args.pop("env"), args.pop("seeds")
    with pytest.raises(error, match=match) as exc:
        gridsim.evaluate(policy, env, seeds, **args)
    assert isinstance(exc.value, gridsim.GridSimError)


def test_evaluate_of_a_passed_env_refuses_arguments_with_a_gridsim_error():
    envs = gridsim.make("nav/room1_small", num_envs=2)
    try:
        with pytest.raises(gridsim.InvalidArgumentError, match="passed in as it is"):
            gridsim.evaluate("random", envs, [0], num_envs=2)
    finally:
        envs.close()


def test_sweep_items_refuses_with_gridsim_errors():
    from gridsim.tools.evaluate import sweep_items

    with pytest.raises(gridsim.InvalidArgumentError, match="at least one"):
        sweep_items([], [NAV_ID])
    with pytest.raises(gridsim.InvalidArgumentError, match="distinct names"):
        sweep_items(["random", "random"], [NAV_ID])


def test_random_policy_refuses_with_gridsim_errors():
    with pytest.raises(gridsim.InvalidArgumentError, match="seed"):
        RandomPolicy(gym.spaces.Discrete(3), seed=-1)
    with pytest.raises(gridsim.ArgumentTypeError, match="Discrete, MultiDiscrete or Box"):
        RandomPolicy(gym.spaces.Text(4))
