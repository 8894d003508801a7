"""gridsim.tools.torch_agent on MiniGrid observations: the ids one-hot, the dict encoded, checkpoints, evaluation."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import gridsim
from gridsim.cli import main
from gridsim.tools.policies import load_policy

torch = pytest.importorskip("torch")
from gridsim.tools import torch_agent  # noqa: E402 - needs torch
from gridsim.tools.torch_agent import Agent, ObsEncoder  # noqa: E402

DOORKEY = "gridsim/MiniGrid-DoorKey-5x5-v0"


def make(env_id: str = DOORKEY, n: int = 4, **kwargs):
    return gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point", **kwargs).unwrapped


def test_the_env_declares_its_image_ids():
    envs = make()
    assert envs.obs_id_counts == {"image": (11, 6, 3)}
    assert make(obs_type="image").obs_id_counts == (11, 6, 3)
    assert make(obs_type="full_image").obs_id_counts == (11, 6, 4)  # the agent's cell: its direction
    assert make("gridsim/Nav-four_rooms-v0").obs_id_counts is None  # other families declare none


def test_image_ids_are_one_hot_per_cell_and_channel():
    envs = make(obs_type="image")
    obs, _ = envs.reset(seed=0)
    encoder = ObsEncoder.from_env(envs)
    x = encoder(obs)
    assert x.shape == (4, 7 * 7 * (11 + 6 + 3)) and encoder.size == x.shape[1]
    cells = x.reshape(4, 49, 20)
    assert torch.equal(cells.sum(2), torch.full((4, 49), 3.0))  # one id per channel
    image = torch.as_tensor(obs.reshape(4, 49, 3)).long()
    assert torch.equal(cells[..., :11].argmax(2), image[..., 0])
    assert torch.equal(cells[..., 11:17].argmax(2), image[..., 1])
    assert torch.equal(cells[..., 17:].argmax(2), image[..., 2])


def test_the_dict_observation_is_image_and_direction_the_mission_left_out():
    envs = make()
    obs, _ = envs.reset(seed=0)
    encoder = ObsEncoder.from_env(envs)
    assert encoder.keys == ("direction", "image") and encoder.ignored == ("mission",)
    x = encoder(obs)
    assert x.shape == (4, 4 + 980)
    assert torch.equal(x[:, :4].argmax(1), torch.as_tensor(obs["direction"]))
    image_only = ObsEncoder.from_env(make(obs_type="image"))
    assert torch.equal(x[:, 4:], image_only(obs["image"]))
    # Missions as indices are a Discrete entry: one-hot as well.
    indexed = ObsEncoder.from_env(make("gridsim/MiniGrid-GoToDoor-5x5-v0", mission_format="index"))
    assert indexed.keys == ("direction", "image", "mission") and indexed.size == 4 + 980 + 6


def test_id_counts_must_fit_the_space():
    space = make().single_observation_space
    with pytest.raises(gridsim.InvalidArgumentError, match="does not have"):
        ObsEncoder(space, {"map": (2,)})
    with pytest.raises(gridsim.InvalidArgumentError, match="last axis"):
        ObsEncoder(space["image"], (11, 6))
    with pytest.raises(gridsim.InvalidArgumentError, match="a MissionSpace space"):
        ObsEncoder(space, {"mission": (1,)})


def saved(tmp_path, **kwargs):
    envs = make(**kwargs)
    torch.manual_seed(0)
    agent = Agent(ObsEncoder.from_env(envs), envs.single_action_space, 16)
    path = tmp_path / "agent.pt"
    torch_agent.save_agent(path, agent, metadata={"env_id": DOORKEY})
    return agent, path


@pytest.mark.parametrize("obs_type", ["dict", "image"])
def test_checkpoints_rebuild_the_encoder(obs_type, tmp_path):
    agent, path = saved(tmp_path, obs_type=obs_type)
    checkpoint = torch.load(path, weights_only=True)
    assert checkpoint["format_version"] == torch_agent.CHECKPOINT_VERSION == 1
    if obs_type == "dict":
        assert checkpoint["observation_space"]["type"] == "Dict"
        assert sorted(checkpoint["observation_space"]["spaces"]) == ["direction", "image"]
        assert checkpoint["obs_id_counts"] == {"image": [11, 6, 3]}
    else:
        assert checkpoint["obs_id_counts"] == [11, 6, 3]
    rebuilt = torch_agent.load_agent(path)
    assert rebuilt.encoder.size == agent.encoder.size and rebuilt.encoder.id_counts == agent.encoder.id_counts
    obs, _ = make(obs_type=obs_type).reset(seed=3)
    np.testing.assert_array_equal(rebuilt.greedy(obs), agent.greedy(obs))


def test_gridsim_eval_runs_a_minigrid_checkpoint(tmp_path, capsys):
    agent, path = saved(tmp_path)
    assert main(["eval", DOORKEY, "--policy", str(path), "--seeds", "0:5"]) == 0
    assert capsys.readouterr().out.startswith(f"{DOORKEY}: policy {path} (greedy)")
    expected = gridsim.evaluate(agent.greedy, DOORKEY, range(5))
    loaded = gridsim.evaluate(load_policy(str(path)), DOORKEY, range(5))
    np.testing.assert_array_equal(loaded["return"], expected["return"])
    np.testing.assert_array_equal(loaded["length"], expected["length"])


def test_a_checkpoint_of_other_observations_is_refused(tmp_path, capsys):
    _, path = saved(tmp_path)
    assert main(["eval", "gridsim/Nav-four_rooms-v0", "--policy", str(path), "--seeds", "0:2"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "trained on observations {'direction': (), 'image': (7, 7, 3)}" in err
    envs = make("gridsim/Nav-four_rooms-v0")
    torch_agent.save_agent(tmp_path / "nav.pt", Agent(ObsEncoder.from_env(envs), envs.single_action_space, 8))
    assert main(["eval", DOORKEY, "--policy", str(tmp_path / "nav.pt"), "--seeds", "0:2"]) == 2
    assert "this env's are a dict of ['direction', 'image', 'mission']" in capsys.readouterr().err


def test_evaluate_passes_a_dict_observation_read_only():
    seen = []

    def policy(obs):
        seen.append((obs["image"].flags.writeable, obs["direction"].flags.writeable, obs["mission"][0]))
        return np.full(len(obs["direction"]), 2)

    gridsim.evaluate(policy, DOORKEY, range(2), env_kwargs={"max_episode_steps": 3})
    assert seen[0] == (False, False, "use the key to open the door and then get to the goal")


def test_a_torch_module_gets_a_dict_of_tensors():
    class Forward(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.zeros(()))

        def forward(self, obs):
            assert isinstance(obs["image"], torch.Tensor) and obs["image"].dtype == torch.float32
            assert isinstance(obs["mission"], tuple)
            out = torch.zeros(len(obs["direction"]), 7)
            out[:, 2] = 1.0
            return out

    result = gridsim.evaluate(Forward(), DOORKEY, range(2), env_kwargs={"max_episode_steps": 3})
    assert result["length"].tolist() == [3, 3]


# --------------------------------------------------------------------------- BabyAI's missions as tokens

GOTOLOCAL = "gridsim/BabyAI-GoToLocal-v0"


def test_babyai_tokens_are_read_by_a_text_encoder():
    envs = make(GOTOLOCAL, mission_format="tokens")
    assert envs.obs_token_counts == {"mission": 34} and make(GOTOLOCAL).obs_token_counts is None
    encoder = ObsEncoder.from_env(envs)
    assert encoder.keys == ("direction", "image", "mission")
    assert encoder.text_parts == (("mission", 4 + 980, 80, 34),) and encoder.token_counts == {"mission": 34}
    obs, _ = envs.reset(seed=0)
    x = encoder(obs)
    np.testing.assert_array_equal(x[:, 984:].numpy(), obs["mission"])  # the ids themselves
    agent = Agent(encoder, envs.single_action_space, 16)
    assert agent.features(x).shape == (4, 984 + agent.text["mission"].width)
    assert agent.actor[0].in_features == 984 + 64
    # The mission reaches the policy: other tokens, other logits.
    other = x.clone()
    other[:, 984:] = torch.as_tensor(envs.reset(seed=1)[0]["mission"], dtype=torch.float32)
    assert not torch.equal(agent.logits(x), agent.logits(other))


def test_the_text_encoder_reads_the_words_in_order_and_ignores_the_padding():
    from gridsim.minigrid.babyai import VOCABULARY
    torch.manual_seed(0)
    text = torch_agent.TextEncoder(len(VOCABULARY))

    def tokens(mission: str, width: int = 12) -> torch.Tensor:
        ids = [VOCABULARY.index(w) for w in mission.split()]
        return torch.as_tensor([ids + [0] * (width - len(ids))])

    a = text(tokens("put the red ball next to the blue key"))
    b = text(tokens("put the blue key next to the red ball"))  # the same words
    assert not torch.allclose(a, b)
    torch.testing.assert_close(text(tokens("put the red ball next to the blue key", 30)), a)
    batch = torch.cat([tokens("go to the red ball"), tokens("put the red ball next to the blue key")])
    torch.testing.assert_close(text(batch)[1:], a)  # each row read to its own last token
    assert torch.equal(text(torch.zeros(2, 5, dtype=torch.long)), torch.zeros(2, text.width))


def test_token_counts_must_fit_the_space():
    space = make(GOTOLOCAL, mission_format="tokens").single_observation_space
    with pytest.raises(gridsim.InvalidArgumentError, match="1-D integer Box"):
        ObsEncoder(space, token_counts={"image": 34})
    with pytest.raises(gridsim.InvalidArgumentError, match="ids 0 to 9"):
        ObsEncoder(space, token_counts={"mission": 10})  # the space's ids reach 33
    with pytest.raises(gridsim.InvalidArgumentError, match="Dict observation"):
        ObsEncoder(space["mission"], token_counts={"mission": 34})
    with pytest.raises(gridsim.InvalidArgumentError, match="does not have"):
        ObsEncoder(space, token_counts={"goal": 34})
    with pytest.raises(gridsim.InvalidArgumentError, match="at least 2"):
        ObsEncoder(space, token_counts={"mission": True})


def test_a_babyai_checkpoint_rebuilds_its_text_encoder(tmp_path):
    envs = make(GOTOLOCAL, mission_format="tokens")
    torch.manual_seed(0)
    agent = Agent(ObsEncoder.from_env(envs), envs.single_action_space, 16)
    path = tmp_path / "babyai.pt"
    torch_agent.save_agent(path, agent)
    assert torch.load(path, weights_only=True)["obs_token_counts"] == {"mission": 34}
    rebuilt = torch_agent.load_agent(path)
    assert rebuilt.encoder.text_parts == agent.encoder.text_parts
    obs, _ = make(GOTOLOCAL, 16, mission_format="tokens").reset(seed=5)
    torch.testing.assert_close(rebuilt.logits(rebuilt.encoder(obs)), agent.logits(agent.encoder(obs)))
    kwargs = {"mission_format": "tokens"}
    expected = gridsim.evaluate(agent.greedy, GOTOLOCAL, range(6), env_kwargs=kwargs)
    np.testing.assert_array_equal(gridsim.evaluate(rebuilt.greedy, GOTOLOCAL, range(6), env_kwargs=kwargs)["return"],
                                  expected["return"])
    # Played where the missions are strings, the network is refused before any episode.
    with pytest.raises(gridsim.InvalidArgumentError, match="trained on observations"):
        gridsim.evaluate(rebuilt.greedy, GOTOLOCAL, range(2))


def test_gridsim_eval_and_render_take_the_env_arguments_a_babyai_checkpoint_needs(tmp_path, capsys):
    envs = make(GOTOLOCAL, mission_format="tokens")
    torch.manual_seed(0)
    agent = Agent(ObsEncoder.from_env(envs), envs.single_action_space, 16)
    torch_agent.save_agent(tmp_path / "babyai.pt", agent)
    argv = ["eval", GOTOLOCAL, "--policy", str(tmp_path / "babyai.pt"), "--seeds", "0:4"]
    assert main([*argv, "--env-kwargs", '{"mission_format": "tokens"}', "--out", str(tmp_path / "eval.csv")]) == 0
    rows = (tmp_path / "eval.csv").read_text().splitlines()
    expected = gridsim.evaluate(agent.greedy, GOTOLOCAL, range(4), env_kwargs={"mission_format": "tokens"})
    assert len(rows) == 5 and [float(r.split(",")[rows[0].split(",").index("return")]) for r in rows[1:]] == \
        pytest.approx(np.asarray(expected["return"]).tolist())
    capsys.readouterr()
    assert main(argv) == 2  # its missions as strings: not what the network reads
    assert "trained on observations" in capsys.readouterr().err
    for bad in ("[1]", "{mission"):
        with pytest.raises(SystemExit):
            main([*argv, "--env-kwargs", bad])
        assert "--env-kwargs" in capsys.readouterr().err
    # gridsim render too: one frame of the episode the checkpoint plays on tokens.
    png = tmp_path / "frame.png"
    assert main(["render", GOTOLOCAL, "--policy", str(tmp_path / "babyai.pt"), "--out", str(png), "--frame", "2",
                 "--env-kwargs", '{"mission_format": "tokens"}']) == 0
    assert png.exists() and f"wrote {png}: frame 2 of {GOTOLOCAL}" in capsys.readouterr().out
    assert main(["render", GOTOLOCAL, "--policy", str(tmp_path / "babyai.pt"), "--out", str(png)]) == 2
