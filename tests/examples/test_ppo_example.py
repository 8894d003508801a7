"""examples/ppo.py runs end to end on a tiny budget (a smoke test; the real runs are in examples/README.md)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gridsim
from gridsim.cli import main
from gridsim.tools.policies import load_policy

torch = pytest.importorskip("torch")
from gridsim.tools import torch_agent  # noqa: E402 - needs torch

ROOT = Path(__file__).resolve().parents[2]
GRIDSIM_HOME = Path(gridsim.__file__).resolve().parents[1]  # the build this test imported


def run_ppo(*args: str, tmp_path: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(GRIDSIM_HOME), env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, "examples/ppo.py", "--num-envs", "8", "--num-steps", "16", "--total-timesteps", "512",
         "--eval-seeds", "20", "--checkpoint", str(tmp_path / "model.pt"), *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])  # the last line is the JSON summary
    assert {"env_id", "success_rate", "mean_return", "sampled_success_rate", "sampled_mean_return", "sps",
            "env_share"} <= result.keys()
    assert 0.0 <= result["success_rate"] <= 1.0 and 0.0 <= result["sampled_success_rate"] <= 1.0
    assert result["eval_episodes"] == 20
    assert (tmp_path / "model.pt").exists()
    return result


@pytest.mark.parametrize("args", [
    ["--env-id", "gridsim/Nav-four_rooms-v0", "--random-starts"],                    # one-hot coordinates
    ["--level", "roboman:LiftRed"],                                                   # masked actions
    ["--env-id", "gridsim/Kitchen-open-divider_salad-v0", "--shaping", "item_chopped=0.5"],  # MultiDiscrete
    ["--env-id", "gridsim/Kitchen-open-divider_salad-v0", "--env-kwargs", '{"agent_rows": true}'],
    # A dict observation of one-hot ids; 20-step training episodes bootstrap from final_obs dicts.
    ["--env-id", "gridsim/MiniGrid-DoorKey-5x5-v0", "--train-episode-steps", "20"],
    # The mission as tokens (the babyai preset's), read by the agent's text encoder.
    ["--env-id", "gridsim/BabyAI-GoToLocal-v0", "--env-kwargs", '{"mission_format": "tokens"}'],
], ids=["nav", "roboman", "kitchen-joint", "kitchen-agent-rows", "minigrid", "babyai"])
def test_ppo_example_trains_and_evaluates(args, tmp_path, capsys):
    result = run_ppo(*args, tmp_path=tmp_path)
    assert result["env_id"] == args[1]
    if "--env-kwargs" not in args:  # gridsim eval makes the env by name alone
        assert main(["eval", args[1], "--policy", str(tmp_path / "model.pt"), "--seeds", "0:3"]) == 0
        assert f"policy {tmp_path / 'model.pt'} (greedy)" in capsys.readouterr().out


def load_example():
    """examples/ppo.py as a module (the examples are no package)."""
    spec = importlib.util.spec_from_file_location("ppo_example", ROOT / "examples" / "ppo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def ppo():
    return load_example()


def saved_agent(ppo, tmp_path, *argv: str):
    """An untrained agent of the example, saved as the example saves it, and its file."""
    args = ppo.parse_args([*argv, "--num-envs", "2", "--hidden", "16", "--checkpoint", str(tmp_path / "agent.pt")])
    envs = ppo.make_envs(args)
    torch.manual_seed(0)
    agent = ppo.Agent(ppo.ObsEncoder.from_env(envs), envs.single_action_space, args.hidden)
    envs.close()
    ppo.save_checkpoint(agent, args)
    return agent, tmp_path / "agent.pt"


@pytest.mark.parametrize("argv", [["--env-id", "gridsim/Nav-four_rooms-v0"], ["--level", "roboman:LiftRed"],
                                  ["--env-id", "gridsim/Kitchen-open-divider_salad-v0"],
                                  ["--env-id", "gridsim/MiniGrid-DoorKey-5x5-v0"]],
                         ids=["nav", "roboman", "kitchen", "minigrid"])
def test_gridsim_eval_loads_the_examples_checkpoint(ppo, argv, tmp_path, capsys):
    agent, path = saved_agent(ppo, tmp_path, *argv)
    env = argv[1]
    assert main(["eval", env, "--policy", str(path), "--seeds", "0:6", "--out", str(tmp_path / "eval.csv")]) == 0
    assert capsys.readouterr().out.startswith(f"{env}: policy {path} (greedy)")
    # The file's policy is the saved network's greedy one: the same episodes as the agent itself.
    expected = gridsim.evaluate(agent.greedy, env, range(6))
    loaded = gridsim.evaluate(load_policy(str(path)), env, range(6))
    np.testing.assert_array_equal(loaded["return"], expected["return"])
    np.testing.assert_array_equal(loaded["length"], expected["length"])


def test_the_checkpoint_loads_without_unpickling_objects(ppo, tmp_path):
    agent, path = saved_agent(ppo, tmp_path, "--level", "roboman:LiftRed")
    checkpoint = torch.load(path, weights_only=True)  # refuses anything but tensors and plain values
    assert checkpoint["format"] == torch_agent.CHECKPOINT_FORMAT and checkpoint["format_version"] == 1
    assert checkpoint["metadata"]["level"] == "roboman:LiftRed" and checkpoint["hidden"] == 16
    rebuilt = torch_agent.load_agent(path)
    for (name, a), (_, b) in zip(agent.state_dict().items(), rebuilt.state_dict().items(), strict=True):
        assert torch.equal(a, b), name


def test_render_loads_the_examples_checkpoint(ppo, tmp_path):
    from gridsim.tools.record import record_episode

    agent, path = saved_agent(ppo, tmp_path, "--env-id", "gridsim/Nav-four_rooms-v0")
    episode = record_episode(load_policy(str(path)), "gridsim/Nav-four_rooms-v0", seed=0, max_steps=5)
    assert episode.length == 5
    pytest.importorskip("imageio")
    assert main(["render", "gridsim/Nav-four_rooms-v0", "--policy", str(path), "--max-steps", "3",
                 "--out", str(tmp_path / "x.gif")]) == 0


def test_checkpoints_of_the_earlier_example_load(ppo, tmp_path, capsys):
    # The example first saved {"model": state_dict, "args": its arguments}, without the spaces.
    agent, path = saved_agent(ppo, tmp_path, "--level", "roboman:LiftRed")
    args = torch.load(path, weights_only=True)["metadata"]
    old = tmp_path / "old.pt"
    torch.save({"model": agent.state_dict(), "args": args}, old)
    assert main(["eval", "roboman:LiftRed", "--policy", str(old), "--seeds", "0:4"]) == 0
    expected = gridsim.evaluate(agent.greedy, "roboman:LiftRed", range(4))
    np.testing.assert_array_equal(gridsim.evaluate(load_policy(str(old)), "roboman:LiftRed", range(4))["return"],
                                  expected["return"])


def test_bad_checkpoints_are_one_line_errors(ppo, tmp_path, capsys):
    agent, path = saved_agent(ppo, tmp_path, "--env-id", "gridsim/Nav-four_rooms-v0")
    cases = {}
    torch.save(agent.state_dict(), tmp_path / "bare.pt")
    cases["bare.pt"] = "holds a OrderedDict, not a module"
    checkpoint = torch.load(path, weights_only=True)
    torch.save({**checkpoint, "format_version": 99}, tmp_path / "future.pt")
    cases["future.pt"] = "format version 99"
    torch.save({**checkpoint, "hidden": 8}, tmp_path / "damaged.pt")
    cases["damaged.pt"] = "damaged"
    (tmp_path / "garbage.pt").write_bytes(b"not a checkpoint")
    cases["garbage.pt"] = "garbage.pt"
    cases["missing.pt"] = "no such file"
    # A network trained on another env: refused when the observations do not fit.
    cases[str(path)] = "trained on observations of shape"
    for name, expected in cases.items():
        file = name if os.path.isabs(name) else str(tmp_path / name)
        assert main(["eval", "roboman:LiftRed", "--policy", file, "--seeds", "0:2"]) == 2, name
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and err.startswith("gridsim eval: error: ") and expected in err, err


def test_rllib_example_takes_ppo_examples_env_flag(capsys):
    # examples/rllib_ppo.py names the env as examples/ppo.py does; --env, its former flag, still works.
    spec = importlib.util.spec_from_file_location("rllib_ppo_example", ROOT / "examples" / "rllib_ppo.py")
    rllib_ppo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rllib_ppo)  # Ray is imported only when training starts
    assert rllib_ppo.parse_args(["--env-id", "roboman:LiftRed"]).env == "roboman:LiftRed"
    assert rllib_ppo.parse_args(["--env", "roboman:LiftRed"]).env == "roboman:LiftRed"
    # So are the rollout length and GAE's lambda; RLlib's names still work.
    assert rllib_ppo.parse_args(["--num-steps", "32", "--gae-lambda", "0.9"]).num_steps == 32
    assert rllib_ppo.parse_args(["--rollout-fragment-length", "16", "--lambda", "0.8"]).gae_lambda == 0.8
    shared = {"--env-id", "--env-kwargs", "--num-steps", "--total-timesteps", "--learning-rate", "--gamma",
              "--gae-lambda", "--num-minibatches", "--update-epochs", "--clip-coef", "--ent-coef", "--vf-coef",
              "--max-grad-norm", "--hidden", "--seed", "--eval-seeds"}
    for parser in (load_example().build_parser(), rllib_ppo.build_parser()):
        flags = {flag for action in parser._actions for flag in action.option_strings}
        assert shared <= flags, shared - flags
    with pytest.raises(SystemExit):
        rllib_ppo.parse_args(["--help"])
    assert "--env-id ID" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "preset"), [
    (["--env-id", "gridsim/Gridroboman-LiftRed-v0"], "roboman"),
    (["--env-id", "gridsim/Nav-four_rooms-v0"], "nav"),
    (["--level", "nav/maze32"], "nav"),
    (["--env-id", "gridsim/Kitchen-open-divider_salad-v0"], "kitchen"),
    (["--env-id", "gridsim/MiniGrid-DoorKey-5x5-v0"], "minigrid"),
    (["--env-id", "gridsim/BabyAI-GoToLocal-v0"], "babyai"),
    (["--level", "minigrid:BabyAI-GoToLocal-v0"], "babyai"),
])
def test_the_envs_family_picks_the_preset(ppo, argv, preset):
    args = ppo.parse_args(argv)
    assert args.preset == preset
    for key, value in (ppo.BASE | ppo.PRESETS[preset]).items():
        assert getattr(args, key) == value, key
    assert args.env_kwargs == ppo.PRESET_ENV_KWARGS.get(preset, {})


def test_babyai_missions_come_as_tokens_unless_the_env_arguments_say_otherwise(ppo):
    args = ppo.parse_args(["--env-id", "gridsim/BabyAI-GoToLocal-v0", "--env-kwargs", '{"max_episode_steps": 9}'])
    assert args.env_kwargs == {"mission_format": "tokens", "max_episode_steps": 9}
    args = ppo.parse_args(["--env-id", "gridsim/BabyAI-GoToLocal-v0", "--env-kwargs", '{"mission_format": "str"}'])
    assert args.env_kwargs == {"mission_format": "str"}
    args = ppo.parse_args(["--env-id", "gridsim/BabyAI-GoToLocal-v0", "--preset", "minigrid"])
    assert args.env_kwargs == {}


def test_a_flag_wins_over_the_preset_and_none_keeps_the_base_row(ppo):
    args = ppo.parse_args(["--env-id", "gridsim/Gridroboman-LiftRed-v0", "--num-envs", "8", "--learning-rate", "3e-4"])
    assert (args.num_envs, args.learning_rate, args.num_steps) == (8, 3e-4, ppo.PRESETS["roboman"]["num_steps"])
    args = ppo.parse_args(["--env-id", "gridsim/Gridroboman-LiftRed-v0", "--preset", "none"])
    assert {key: getattr(args, key) for key in ppo.BASE} == ppo.BASE
    args = ppo.parse_args(["--env-id", "gridsim/Gridroboman-LiftRed-v0", "--preset", "kitchen"])
    assert args.ent_coef == ppo.PRESETS["kitchen"]["ent_coef"]


def test_ppo_help_shows_every_default(ppo, capsys):
    with pytest.raises(SystemExit):
        ppo.parse_args(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--gamma GAMMA discount (default: 0.99)" in text
    assert ("(default: the preset's: nav decay, roboman decay, kitchen constant, minigrid decay, babyai decay; "
            "none decay)") in text
    assert "(default: auto)" in text
    assert "the preset's: nav 32, roboman 32, kitchen 64, minigrid 32, babyai 32; none 64" in text
    assert "(default: None)" not in text


def test_the_default_learning_rate_makes_a_shorter_run_the_start_of_a_longer_one(ppo):
    # An annealed rate made a smaller budget change every update before it (the kitchen at 1M); the
    # default decays over a fixed number of updates to a floor, whatever the budget.
    args = ppo.parse_args(["--env-id", "gridsim/Nav-four_rooms-v0", "--lr-decay-updates", "4", "--lr-floor", "0.25"])
    assert args.lr_schedule == "decay"
    rates = {updates: [ppo.learning_rate(args, u, updates) for u in range(1, updates + 1)] for updates in (3, 8)}
    assert rates[8][:3] == rates[3]
    rate = ppo.PRESETS["nav"]["learning_rate"]
    assert rates[8][0] == rate and rates[8] == sorted(rates[8], reverse=True)
    assert rates[8][4:] == [pytest.approx(0.25 * rate)] * 4 and rates[8][3] > 0.25 * rate
    args.lr_schedule = "constant"
    assert {ppo.learning_rate(args, u, 8) for u in range(1, 9)} == {rate}
    args.lr_schedule = "linear"
    rates = {updates: [ppo.learning_rate(args, u, updates) for u in range(1, updates + 1)] for updates in (3, 6)}
    assert rates[6][0] == rates[3][0] == args.learning_rate and rates[6][1] > rates[3][1]
    assert rates[6] == sorted(rates[6], reverse=True) and rates[6][-1] > 0


def test_every_preset_decays_its_rate_within_its_budget(ppo):
    # The rate reaches its floor by the preset's budget: the default run ends on the rate it was tuned at.
    for row in (ppo.BASE | preset for preset in [*ppo.PRESETS.values(), {}]):
        if row["lr_schedule"] != "decay":
            continue
        assert 1 <= row["lr_decay_updates"] <= row["total_timesteps"] // (row["num_envs"] * row["num_steps"]), row


@pytest.mark.parametrize("argv", [["--lr-floor", "1.5"], ["--lr-floor", "-0.1"], ["--lr-decay-updates", "0"]])
def test_a_schedule_outside_its_range_is_refused(ppo, argv, capsys):
    with pytest.raises(SystemExit):
        ppo.parse_args(["--env-id", "gridsim/Nav-four_rooms-v0", *argv])
    assert argv[0] in capsys.readouterr().err


def test_the_sampled_policy_draws_from_the_masked_categoricals_reproducibly():
    envs = gridsim.make("roboman:LiftRed", 16)
    obs, infos = envs.reset(seed=0)
    torch.manual_seed(0)
    agent = torch_agent.Agent(torch_agent.ObsEncoder.from_env(envs), envs.single_action_space, 16)
    masked = np.asarray(infos["action_mask"]).astype(bool)
    assert masked.any()
    draws = [torch_agent.SampledPolicy(agent, seed)(obs, infos) for seed in (3, 3, 4)]
    np.testing.assert_array_equal(draws[0], draws[1])
    assert not np.array_equal(draws[0], draws[2])
    many = np.stack([torch_agent.SampledPolicy(agent, seed)(obs, infos) for seed in range(50)])
    assert not masked[np.arange(16), many].any()  # never a masked action
    assert len(np.unique(many[:, 0])) > 1  # not the greedy action every time
    envs.close()
    kitchen = gridsim.make("kitchen/open-divider_salad", 3)
    obs, infos = kitchen.reset(seed=0)
    agent = torch_agent.Agent(torch_agent.ObsEncoder.from_env(kitchen), kitchen.single_action_space, 16)
    actions = torch_agent.SampledPolicy(agent, 0)(obs, infos)
    assert actions.shape == (3, len(kitchen.single_action_space.nvec))
    assert kitchen.action_space.contains(actions)
    kitchen.close()


def examples_readme() -> str:
    path = ROOT / "examples" / "README.md"
    if not path.is_file():
        pytest.skip("examples/README.md is not next to the tests")
    return path.read_text()


def test_every_documented_command_parses(ppo):
    import re
    import shlex

    commands = re.findall(r"^\| [^|]+ \| `(--env-id [^`]+)` \|", examples_readme(), re.M)
    assert len(commands) >= 10
    for command in commands:
        args = ppo.parse_args(shlex.split(command))
        assert args.env_id.startswith("gridsim/"), command


def test_the_documented_preset_table_is_the_scripts(ppo):
    import re

    cells = r" \| ".join([r"([\d,.e-]+)"] * 5 + [r"(\w+)", r"([\d,]+)"])
    rows = re.findall(rf"^\| `(\w+)` \| {cells} \|$", examples_readme(), re.M)
    keys = ["num_envs", "num_steps", "total_timesteps", "learning_rate", "ent_coef", "lr_schedule", "lr_decay_updates"]

    def value(text):
        return text if text.isalpha() else float(text.replace(",", ""))

    documented = {name: [value(v) for v in values] for name, *values in rows}
    assert documented == {name: [value(str((ppo.BASE | row)[k])) for k in keys]
                          for name, row in {**ppo.PRESETS, "none": {}}.items()}


def test_gridsim_eval_and_render_sample_a_checkpoints_actions(ppo, tmp_path, capsys):
    agent, path = saved_agent(ppo, tmp_path, "--level", "roboman:LiftRed")
    assert main(["eval", "roboman:LiftRed", "--policy", str(path), "--seeds", "5:11", "--sample"]) == 0
    first = capsys.readouterr().out.splitlines()[0]  # a long name is cut short, as here: "agent.pt (samp..."
    assert first.startswith(f"roboman:LiftRed: policy {path} (samp") and "greedy" not in first, first
    # The command line's sampled policy is SampledPolicy(agent, 0).
    expected = gridsim.evaluate(torch_agent.SampledPolicy(agent, 0), "roboman:LiftRed", range(5, 11))
    got = gridsim.evaluate(load_policy(str(path)).sampled(0), "roboman:LiftRed", range(5, 11), num_envs=2)
    np.testing.assert_array_equal(got["length"], expected["length"])
    np.testing.assert_array_equal(got["return"], expected["return"])
    assert repr(torch_agent.CheckpointPolicy(agent, "run.pt", sample_seed=0)) == "run.pt (sampled)"
    for argv in (["eval", "roboman:LiftRed", "--sample"],  # the random policy has no categoricals to draw from
                 ["eval", "roboman:LiftRed", "--policy", str(path), "--sample", "--ray"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and err.startswith("gridsim eval: error: --sample"), err
    pytest.importorskip("imageio")
    assert main(["render", "roboman:LiftRed", "--policy", str(path), "--sample", "--max-steps", "3",
                 "--out", str(tmp_path / "x.gif")]) == 0


def test_the_sampled_policy_plays_the_same_episodes_whatever_the_batch():
    # Under gridsim.evaluate each row's draw is a hash of the episode's seed and step.
    envs = gridsim.make("roboman:LiftRed", 2)
    torch.manual_seed(0)
    agent = torch_agent.Agent(torch_agent.ObsEncoder.from_env(envs), envs.single_action_space, 16)
    envs.close()
    policy = torch_agent.SampledPolicy(agent, 3)
    runs = [gridsim.evaluate(policy, "roboman:LiftRed", range(24), num_envs=n) for n in (24, 5, 1)]
    for run in runs[1:]:
        np.testing.assert_array_equal(run["length"], runs[0]["length"])
        np.testing.assert_array_equal(run["return"], runs[0]["return"])
    other = gridsim.evaluate(torch_agent.SampledPolicy(agent, 4), "roboman:LiftRed", range(24))
    assert not np.array_equal(other["length"], runs[0]["length"])


def test_the_inverse_cdf_draws_in_proportion_and_never_a_zero():
    probs = np.tile([[0.0, 0.2, 0.0, 0.5, 0.3, 0.0]], (200_000, 1))
    u = np.random.default_rng(0).random(len(probs))
    picks = torch_agent._inverse_cdf(probs, u)
    np.testing.assert_allclose(np.bincount(picks, minlength=6) / len(picks), probs[0], atol=0.005)
    edge = torch_agent._inverse_cdf(probs[:3], np.array([0.0, 0.999999999999, np.nextafter(1.0, 0.0)]))
    assert edge.tolist() == [1, 4, 4]


def test_the_unseen_levels_load_and_are_not_in_the_package():
    # examples/README.md measures the presets on these: levels no preset was tuned on, so not built in.
    from gridsim.levels.lookup import level_names

    folder = ROOT / "examples" / "levels"
    if not folder.is_dir():
        pytest.skip("examples/levels is not next to the tests")
    names = sorted(set(level_names(folder)) - set(level_names()))
    assert len(names) == len(list(folder.rglob("*.txt"))) >= 4
    assert {name.split("/")[0] for name in names} == {"nav", "kitchen"}
    documented = examples_readme()
    for name in names:
        assert f"--level {name} --level-directory examples/levels" in documented, name
        envs = gridsim.make(name, 2, level_directory=folder, max_episode_steps=100)
        envs.reset(seed=0)
        envs.step(envs.action_space.sample())
        envs.close()
