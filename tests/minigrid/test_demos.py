"""BabyAI demonstrations written as Minari datasets (gridsim.minigrid.demos, ``gridsim demos``).

Round trips through ``minari.load_dataset``: every episode replayed from its recorded seed by a
fresh env and bot gives the recorded actions, observations, rewards and flags; each observation
subset; the command line and its one-line errors; interrupted runs (an exception, SIGINT and
SIGTERM to a child process) leave nothing at the destination; an existing destination is refused.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("minari")
pytest.importorskip("h5py")
pytest.importorskip("PIL")

import minari  # noqa: E402

import gridsim  # noqa: E402
from gridsim.cli import main  # noqa: E402
from gridsim.errors import InvalidArgumentError  # noqa: E402
from gridsim.minigrid import demos  # noqa: E402
from gridsim.minigrid.babyai import decode_row  # noqa: E402
from gridsim.minigrid.bot import BabyAIBot  # noqa: E402
from gridsim.minigrid.demos import record_demos  # noqa: E402

ENV = "BabyAI-GoToLocal-v0"
DATASET = f"gridsim/{ENV}/bot-v0"


def _load(root: Path, dataset_id: str = DATASET, monkeypatch: pytest.MonkeyPatch | None = None):
    """``minari.load_dataset`` with ``root`` as Minari's datasets root."""
    assert monkeypatch is not None
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(root))
    return minari.load_dataset(dataset_id)


def _metadata(dataset) -> list[dict]:
    return list(dataset.storage.get_episode_metadata(range(dataset.total_episodes)))


def _replay(env_id: str, seed: int, actions: np.ndarray):
    """The episode of ``seed`` played by a fresh env and bot with ``actions``: (suggested, obs, rewards, flags)."""
    env = gridsim.make(env_id, num_envs=1)
    obs, _ = env.reset(seed=seed)
    bot = BabyAIBot(env)
    suggested, seen, rewards, terms, truncs = [], [_copy(obs)], [], [], []
    taken = None
    for action in actions:
        suggested.append(int(bot.replan(taken)[0]))
        taken = np.array([action])
        obs, reward, term, trunc, _ = env.step(taken)
        seen.append(_copy(obs))
        rewards.append(reward[0])
        terms.append(term[0])
        truncs.append(trunc[0])
    env.close()
    return suggested, seen, np.array(rewards), np.array(terms), np.array(truncs)


def _copy(obs: dict) -> dict:
    return {"image": obs["image"][0].copy(), "direction": int(obs["direction"][0]), "mission": obs["mission"][0]}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """40 episodes of GoToLocal, all observations, from a batch of 7 (episodes end out of seed order)."""
    root = tmp_path_factory.mktemp("root")
    summary = record_demos(ENV, 40, root, num_envs=7, seed=100, progress=False)
    return root, summary


def test_round_trip_replays_from_each_seed(recorded, monkeypatch):
    root, summary = recorded
    dataset = _load(root, monkeypatch=monkeypatch)
    assert dataset.total_episodes == summary.episodes == 40
    assert dataset.total_steps == summary.steps == sum(len(e) for e in dataset)
    assert summary.failed == 0 and summary.path == root / DATASET and summary.bytes > 0
    metadata = _metadata(dataset)
    assert [m["seed"] for m in metadata] == list(range(100, 140))  # seed order, whatever the batch
    for episode, meta in zip(dataset.iterate_episodes(), metadata, strict=True):
        seed = meta["seed"]
        np.testing.assert_array_equal(episode.infos["seed"], np.full(len(episode) + 1, seed))
        suggested, seen, rewards, terms, truncs = _replay(ENV, seed, episode.actions)
        np.testing.assert_array_equal(episode.actions, suggested)
        obs = episode.observations
        assert obs["image"].dtype == np.uint8 and obs["image"].shape == (len(episode) + 1, 7, 7, 3)
        np.testing.assert_array_equal(obs["image"], np.stack([s["image"] for s in seen]))
        np.testing.assert_array_equal(obs["direction"], [s["direction"] for s in seen])
        assert obs["mission"] == [s["mission"] for s in seen] == [meta["mission"]] * (len(episode) + 1)
        np.testing.assert_array_equal(episode.rewards, rewards)
        np.testing.assert_array_equal(episode.terminations, terms)
        np.testing.assert_array_equal(episode.truncations, truncs)
        assert episode.terminations[-1] and not episode.terminations[:-1].any() and episode.rewards[-1] > 0


def test_dataset_is_the_same_whatever_the_batch(recorded, tmp_path):
    root, _ = recorded
    other = record_demos(ENV, 40, tmp_path, num_envs=3, seed=100, progress=False).load()
    mine = minari.MinariDataset(root / DATASET / "data")
    for a, b in zip(mine, other, strict=True):
        np.testing.assert_array_equal(a.actions, b.actions)
        np.testing.assert_array_equal(a.observations["image"], b.observations["image"])
        np.testing.assert_array_equal(a.rewards, b.rewards)


@pytest.mark.parametrize("observations", ["image", "image+tokens"])
def test_observation_subsets(observations, tmp_path, monkeypatch):
    summary = record_demos(ENV, 6, tmp_path, seed=3, observations=observations, progress=False)
    dataset = _load(tmp_path, monkeypatch=monkeypatch)
    assert summary.observations == observations and dataset.total_episodes == 6
    for episode, meta in zip(dataset.iterate_episodes(), _metadata(dataset), strict=True):
        _, seen, _, _, _ = _replay(ENV, meta["seed"], episode.actions)
        images = np.stack([s["image"] for s in seen])
        if observations == "image":
            assert isinstance(episode.observations, np.ndarray)
            np.testing.assert_array_equal(episode.observations, images)
        else:
            obs = episode.observations
            assert set(obs) == {"image", "direction", "mission"}
            np.testing.assert_array_equal(obs["image"], images)
            assert obs["mission"].dtype == np.uint8 and obs["mission"].shape == (len(episode) + 1, 80)
            assert {decode_row(row) for row in obs["mission"]} == {meta["mission"]} == {s["mission"] for s in seen}


def test_failed_episodes_are_left_out_and_counted(tmp_path, monkeypatch):
    replan = BabyAIBot.replan

    def failing(self, actions_taken=None):  # the bot fails at once in the episodes of seeds divisible by 3
        out = replan(self, actions_taken)
        for i in range(self.num_envs):
            if self.env.env_np_random_seed(i) % 3 == 0:
                out[i] = -1
        return out

    monkeypatch.setattr(BabyAIBot, "replan", failing)
    summary = record_demos(ENV, 8, tmp_path, num_envs=4, seed=0, progress=False)
    seeds = [m["seed"] for m in _metadata(summary.load())]
    assert seeds == [1, 2, 4, 5, 7, 8, 10, 11]
    assert summary.episodes == 8 and summary.failed == 4 and summary.seeds == (0, 11)


def test_existing_destination_is_refused_unless_overwrite(tmp_path):
    first = record_demos(ENV, 3, tmp_path, progress=False)
    with pytest.raises(InvalidArgumentError, match="exists"):
        record_demos(ENV, 5, tmp_path, progress=False)
    assert first.load().total_episodes == 3
    assert record_demos(ENV, 5, tmp_path, overwrite=True, progress=False).load().total_episodes == 5
    assert sorted(p.name for p in first.path.parent.iterdir()) == ["bot-v0"]  # no temporary folder left
    other = tmp_path / "mine" / "notes-v0"
    other.mkdir(parents=True)
    with pytest.raises(InvalidArgumentError, match="not a Minari dataset"):
        record_demos(ENV, 2, tmp_path, dataset_id="mine/notes-v0", overwrite=True, progress=False)
    assert other.is_dir() and not any(other.iterdir())


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"env_id": "MiniGrid-Empty-5x5-v0"}, "not a BabyAI id"),
    ({"env_id": "BabyAI-GoToLocl-v0"}, "did you mean 'BabyAI-GoToLocal-v0'"),
    ({"episodes": 0}, "episodes must be a positive integer"),
    ({"num_envs": 0}, "num_envs must be a positive integer"),
    ({"seed": -1}, "seed must be a non-negative integer"),
    ({"observations": "images"}, "observations must be one of all, image, image\\+tokens"),
    ({"dataset_id": "gridsim/no-version"}, "with a version"),
])
def test_bad_arguments_raise_before_writing(kwargs, match, tmp_path):
    args = {"env_id": ENV, "episodes": 2, "out": tmp_path / "root", **kwargs}
    with pytest.raises(InvalidArgumentError, match=match) as info:
        record_demos(progress=False, **args)
    assert "\n" not in str(info.value)
    assert not (tmp_path / "root").exists()


def test_missing_minari_names_the_extra(tmp_path, monkeypatch):
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "minari" else find_spec(name, *a))
    with pytest.raises(InvalidArgumentError, match='pip install "gridsim-vec\\[demos\\]"') as info:
        record_demos(ENV, 2, tmp_path / "root", progress=False)
    assert "\n" not in str(info.value) and "minari" in str(info.value)
    assert not (tmp_path / "root").exists()


def test_exception_midway_leaves_nothing(tmp_path, monkeypatch):
    replan, calls = BabyAIBot.replan, []

    def interrupted(self, actions_taken=None):
        calls.append(1)
        if len(calls) == 40:
            raise KeyboardInterrupt
        return replan(self, actions_taken)

    monkeypatch.setattr(BabyAIBot, "replan", interrupted)
    monkeypatch.setattr(demos, "_FLUSH_STEPS", 8)  # episodes were written to the temporary folder already
    with pytest.raises(KeyboardInterrupt):
        record_demos(ENV, 1000, tmp_path / "root", num_envs=8, progress=False)
    assert len(calls) == 40
    assert not (tmp_path / "root").exists()  # the folders made for it went too


def test_cli_writes_and_errors_are_one_line(tmp_path, capsys, monkeypatch):
    argv = ["demos", ENV, "--episodes", "4", "--out", str(tmp_path), "--num-envs", "2", "--seed", "7",
            "--observations", "image+tokens", "--no-progress"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"wrote {tmp_path / DATASET}: 4 episodes" in out and f"MINARI_DATASETS_PATH={tmp_path}" in out
    dataset = _load(tmp_path, monkeypatch=monkeypatch)
    assert [m["seed"] for m in _metadata(dataset)] == [7, 8, 9, 10]
    for bad, message in [(argv, "exists"), (["demos", "MiniGrid-Empty-5x5-v0", "--episodes", "2", "--out",
                                             str(tmp_path)], "not a BabyAI id"),
                         (["demos", ENV, "--episodes", "0", "--out", str(tmp_path / "x")], "positive integer")]:
        assert main(bad) == 2
        err = capsys.readouterr().err
        assert err.startswith("gridsim demos: error: ") and message in err and err.count("\n") == 1
    assert main(argv + ["--overwrite"]) == 0


def _default_signals() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_signal_midway_leaves_nothing(signum, tmp_path):
    root = tmp_path / "root"
    code = (f"import sys; from gridsim.cli import main; sys.exit(main(['demos', {ENV!r}, '--episodes', '1000000', "
            f"'--out', {str(root)!r}, '--num-envs', '64', '--no-progress']))")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    # From tmp_path: "python -c" puts its working folder first on sys.path, and the source folder
    # holds no compiled kernel where the tests run against an installed build.
    # The child's SIGINT as a terminal's Ctrl-C finds it: a test run started in the background
    # (`cmd &` in a script) ignores SIGINT, and its children would inherit that.
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            cwd=tmp_path, preexec_fn=_default_signals)
    folder = root / "gridsim" / ENV
    deadline = time.monotonic() + 60
    # Wait until the episodes are being written (the temporary folder holds the HDF5 file).
    while not any(folder.glob(".bot-v0.*.tmp/data/main_data.hdf5")):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    if signum == signal.SIGINT:
        assert proc.returncode == 130 and b"interrupted; nothing was written" in err
    else:
        assert proc.returncode == 128 + signal.SIGTERM
    assert not root.exists()  # neither the dataset, nor its temporary folder, nor the folders made for them
